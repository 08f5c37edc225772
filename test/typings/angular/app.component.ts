// An Angular app using <live-visitors> as the README shows: imports the package;
// CUSTOM_ELEMENTS_SCHEMA admits the tag, and strictTemplates types its events from the package's event
// map. ngc (strictTemplates) must accept it.
import { Component, CUSTOM_ELEMENTS_SCHEMA, output } from '@angular/core';
import 'live-visitors';

@Component({
  selector: 'app-visitors-badge',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `<live-visitors website-id="shop-42" [min]="5" [interval]="30" (live-visitors-update)="count.emit($event.detail.count)" />`,
})
export class VisitorsBadge {
  readonly count = output<number>();
}
