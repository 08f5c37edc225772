<?php
/**
 * The test site has no mail server and no sendmail: WordPress's install mail (and any other)
 * would fail in PHPMailer and print "sendmail: not found" into the test output. Mail is not what
 * these tests check, so wp_mail answers "not sent" at once without trying.
 *
 * @package LiveVisitorsTest
 */

add_filter( 'pre_wp_mail', '__return_false' );
