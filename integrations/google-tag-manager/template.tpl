___TERMS_OF_SERVICE___

By creating or modifying this file you agree to Google Tag Manager's Community
Template Gallery Developer Terms of Service available at
https://developers.google.com/tag-manager/gallery-tos (or such other URL as
Google may provide), as modified from time to time.


___INFO___

{
  "type": "TAG",
  "id": "cvt_temp_public_id",
  "version": 1,
  "securityGroups": [],
  "displayName": "Live visitors",
  "categories": ["CONVERSIONS", "PERSONALIZATION"],
  "brand": {
    "id": "brand_dummy",
    "displayName": "live-visitors"
  },
  "description": "Shows your shop's real number of visitors right now beside an offer (\"12 people are browsing this shop right now\"), placed by a CSS selector, without editing a page template.",
  "containerContexts": [
    "WEB"
  ]
}


___TEMPLATE_PARAMETERS___

[
  {
    "type": "TEXT",
    "name": "websiteId",
    "displayName": "Website ID",
    "simpleValueType": true,
    "alwaysInSummary": true,
    "help": "The ID of your website at the realtime visitors service.",
    "valueValidators": [
      {
        "type": "NON_EMPTY"
      }
    ]
  },
  {
    "type": "GROUP",
    "name": "placementGroup",
    "displayName": "Where the sentence goes",
    "groupStyle": "ZIPPY_OPEN",
    "subParams": [
      {
        "type": "TEXT",
        "name": "selector",
        "displayName": "CSS selector of the element to place it beside",
        "simpleValueType": true,
        "alwaysInSummary": true,
        "valueHint": "form[action*=\"/cart/add\"]",
        "help": "For example <code>.product-form</code> or <code>form[action*=\"/cart/add\"]</code>. If the page builds it late, the sentence waits for it for a while; if it never appears, nothing is placed and the browser console says so.",
        "valueValidators": [
          {
            "type": "NON_EMPTY"
          }
        ]
      },
      {
        "type": "SELECT",
        "name": "position",
        "displayName": "Position",
        "simpleValueType": true,
        "defaultValue": "after",
        "selectItems": [
          {
            "value": "after",
            "displayValue": "After it"
          },
          {
            "value": "before",
            "displayValue": "Before it"
          },
          {
            "value": "first",
            "displayValue": "Inside it, first"
          },
          {
            "value": "last",
            "displayValue": "Inside it, last"
          }
        ]
      }
    ]
  },
  {
    "type": "GROUP",
    "name": "connectionGroup",
    "displayName": "Connection",
    "groupStyle": "ZIPPY_OPEN",
    "subParams": [
      {
        "type": "TEXT",
        "name": "apiBase",
        "displayName": "Relay or API base",
        "simpleValueType": true,
        "valueHint": "https://visitors.example.com",
        "help": "The address of a relay that keeps your token on its server and asks the service once per interval for all your visitors. Open the relay's page (your own relay, or one hosted for many shops), register your website there and paste its address here, as a URL (<code>https://visitors.example.com</code>) or a path on your own site (<code>/apps/live-visitors</code>). Empty: this page's own origin."
      },
      {
        "type": "TEXT",
        "name": "interval",
        "displayName": "Seconds between updates",
        "simpleValueType": true,
        "valueHint": "60",
        "help": "How often the count is asked for. Values under 15 count as 15. Empty: 60.",
        "valueValidators": [
          {
            "type": "REGEX",
            "args": ["^([1-9][0-9]*)?$"],
            "errorMessage": "A whole number of seconds, or empty."
          }
        ]
      },
      {
        "type": "TEXT",
        "name": "maxAge",
        "displayName": "Oldest count to show (seconds)",
        "simpleValueType": true,
        "valueHint": "600",
        "help": "How long the last good count may still show while a fresh one cannot be had. Never less than the update interval plus 10 seconds, never more than 7 days. Empty: 600.",
        "valueValidators": [
          {
            "type": "REGEX",
            "args": ["^([1-9][0-9]*)?$"],
            "errorMessage": "A whole number of seconds, or empty."
          }
        ]
      },
      {
        "type": "TEXT",
        "name": "token",
        "displayName": "API token (not recommended)",
        "simpleValueType": true,
        "help": "Warning: a token entered here is written into every page, where anyone can read it and spend your plan's hourly requests. Leave it empty and use a relay instead; fill it only to try the tag out."
      }
    ]
  },
  {
    "type": "GROUP",
    "name": "elementGroup",
    "displayName": "The sentence",
    "groupStyle": "ZIPPY_CLOSED",
    "subParams": [
      {
        "type": "TEXT",
        "name": "min",
        "displayName": "Smallest count to show",
        "simpleValueType": true,
        "valueHint": "1",
        "help": "Below this number the sentence is not shown. Empty: 1.",
        "valueValidators": [
          {
            "type": "REGEX",
            "args": ["^([1-9][0-9]*)?$"],
            "errorMessage": "A whole number of 1 or more, or empty."
          }
        ]
      },
      {
        "type": "TEXT",
        "name": "text",
        "displayName": "Sentence",
        "simpleValueType": true,
        "valueHint": "{count} people are looking at this right now",
        "help": "Your own words, with <code>{count}</code> where the number goes. Empty: the built-in sentence in the page's language."
      },
      {
        "type": "TEXT",
        "name": "textOne",
        "displayName": "Sentence for one",
        "simpleValueType": true,
        "valueHint": "{count} person is looking at this right now",
        "help": "The sentence when the count is one (the singular), with <code>{count}</code> where the number goes. Empty: the sentence above, or the built-in one."
      },
      {
        "type": "TEXT",
        "name": "textTwo",
        "displayName": "Sentence for two (dual)",
        "simpleValueType": true,
        "help": "For languages with a dual form (Arabic, Hebrew, Slovenian): the sentence for two. Empty: the sentence above."
      },
      {
        "type": "TEXT",
        "name": "textFew",
        "displayName": "Sentence for a few",
        "simpleValueType": true,
        "help": "For languages with a \"few\" form (Czech, Polish, Russian, Arabic…): that sentence. Empty: the sentence above."
      },
      {
        "type": "TEXT",
        "name": "textMany",
        "displayName": "Sentence for many",
        "simpleValueType": true,
        "help": "For languages with a \"many\" form (Polish, Russian, Arabic…): that sentence. Empty: the sentence above."
      },
      {
        "type": "TEXT",
        "name": "lang",
        "displayName": "Language",
        "simpleValueType": true,
        "valueHint": "de",
        "help": "The sentence's language and number format, as a language tag (<code>de</code>, <code>pt-BR</code>). Empty: the page's language.",
        "valueValidators": [
          {
            "type": "REGEX",
            "args": ["^([A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$"],
            "errorMessage": "A language tag such as de or pt-BR, or empty."
          }
        ]
      },
      {
        "type": "SELECT",
        "name": "notation",
        "displayName": "Large numbers",
        "simpleValueType": true,
        "defaultValue": "standard",
        "selectItems": [
          {
            "value": "standard",
            "displayValue": "In full (1,234)"
          },
          {
            "value": "compact",
            "displayValue": "Short (1.2K)"
          }
        ]
      },
      {
        "type": "SELECT",
        "name": "disclosure",
        "displayName": "Explanation of the number",
        "simpleValueType": true,
        "defaultValue": "on",
        "help": "On: hovering, focusing or tapping the sentence says what the number counts and when it was collected.",
        "selectItems": [
          {
            "value": "on",
            "displayValue": "On"
          },
          {
            "value": "off",
            "displayValue": "Off"
          }
        ]
      },
      {
        "type": "TEXT",
        "name": "disclosureText",
        "displayName": "Explanation",
        "simpleValueType": true,
        "valueHint": "Visitors on this whole shop in the last 3 minutes, counted at {time}",
        "help": "Your own explanation of the number, with <code>{time}</code> where the time it was collected goes. Empty: the built-in explanation."
      },
      {
        "type": "TEXT",
        "name": "holdout",
        "displayName": "Holdout share",
        "simpleValueType": true,
        "valueHint": "0.2",
        "help": "Share of browsers (0 to 0.9) that never see the sentence, as an experiment's control group. Both groups push a live_visitors_impression event to the data layer. Empty: 0.",
        "valueValidators": [
          {
            "type": "REGEX",
            "args": ["^(0(\\.[0-9]+)?)?$"],
            "errorMessage": "A number from 0 to 0.9, like 0.2, or empty."
          }
        ]
      }
    ]
  },
  {
    "type": "GROUP",
    "name": "scriptGroup",
    "displayName": "Script",
    "groupStyle": "ZIPPY_CLOSED",
    "subParams": [
      {
        "type": "TEXT",
        "name": "scriptUrl",
        "displayName": "Script URL",
        "simpleValueType": true,
        "defaultValue": "https://cdn.jsdelivr.net/npm/live-visitors@0/dist/live-visitors-loader.js",
        "help": "The package's classic loader, live-visitors-loader.js. To load it from your own server, also add your URL to this template's \"Injects scripts\" permission.",
        "valueValidators": [
          {
            "type": "NON_EMPTY"
          },
          {
            "type": "REGEX",
            "args": ["^https://.+"],
            "errorMessage": "An https:// URL."
          }
        ]
      }
    ]
  }
]


___SANDBOXED_JS_FOR_WEB_TEMPLATE___

const createQueue = require('createQueue');
const injectScript = require('injectScript');
const logToConsole = require('logToConsole');
const makeString = require('makeString');
const queryPermission = require('queryPermission');

// The loader drains this global array of placements, so a placement pushed before it loads counts too.
const QUEUE_NAME = 'liveVisitors';
const POSITIONS = ['before', 'after', 'first', 'last'];
const OPTIONAL_ATTRIBUTES = [
  ['api-base', data.apiBase],
  ['token', data.token],
  ['interval', data.interval],
  ['max-age', data.maxAge],
  ['min', data.min],
  ['text', data.text],
  ['text-one', data.textOne],
  ['text-two', data.textTwo],
  ['text-few', data.textFew],
  ['text-many', data.textMany],
  ['lang', data.lang],
  ['notation', data.notation],
  ['disclosure', data.disclosure],
  ['disclosure-text', data.disclosureText],
  ['holdout', data.holdout]
];

// A variable in a field may resolve to a number or to nothing: every value is read as trimmed text.
const textOf = (value) => (value === undefined || value === null) ? '' : makeString(value).trim();

const fail = (message) => {
  logToConsole('Live visitors tag: ' + message);
  data.gtmOnFailure();
};

const websiteId = textOf(data.websiteId);
const selector = textOf(data.selector);
const position = textOf(data.position) || 'after';
const scriptUrl = textOf(data.scriptUrl);

if (websiteId === '') {
  fail('the Website ID field is empty, so nothing was placed.');
  return;
}
if (selector === '') {
  fail('the CSS selector field is empty, so nothing was placed.');
  return;
}
if (POSITIONS.indexOf(position) === -1) {
  fail('the position "' + position + '" is not one of ' + POSITIONS.join(', ') + '.');
  return;
}
if (scriptUrl.indexOf('https://') !== 0 || !queryPermission('inject_script', scriptUrl)) {
  fail('this template may not load "' + scriptUrl + '". Add the URL to its "Injects scripts" permission, or use the default.');
  return;
}

const attributes = {'website-id': websiteId};
OPTIONAL_ATTRIBUTES.forEach((pair) => {
  const value = textOf(pair[1]);
  if (value !== '') attributes[pair[0]] = value;
});
if (attributes.token) {
  logToConsole('Live visitors tag: the API token is written into the page, where anyone can read it. A relay keeps it on your server.');
}

createQueue(QUEUE_NAME)({selector: selector, position: position, attributes: attributes});

// The URL as cache token: several placements on one page load the loader once.
injectScript(scriptUrl, data.gtmOnSuccess, () => fail('the script at ' + scriptUrl + ' did not load.'), scriptUrl);


___WEB_PERMISSIONS___

[
  {
    "instance": {
      "key": {
        "publicId": "logging",
        "versionId": "1"
      },
      "param": [
        {
          "key": "environments",
          "value": {
            "type": 1,
            "string": "debug"
          }
        }
      ]
    },
    "clientAnnotations": {
      "isEditedByUser": true
    },
    "isRequired": true
  },
  {
    "instance": {
      "key": {
        "publicId": "access_globals",
        "versionId": "1"
      },
      "param": [
        {
          "key": "keys",
          "value": {
            "type": 2,
            "listItem": [
              {
                "type": 3,
                "mapKey": [
                  {
                    "type": 1,
                    "string": "key"
                  },
                  {
                    "type": 1,
                    "string": "read"
                  },
                  {
                    "type": 1,
                    "string": "write"
                  },
                  {
                    "type": 1,
                    "string": "execute"
                  }
                ],
                "mapValue": [
                  {
                    "type": 1,
                    "string": "liveVisitors"
                  },
                  {
                    "type": 8,
                    "boolean": true
                  },
                  {
                    "type": 8,
                    "boolean": true
                  },
                  {
                    "type": 8,
                    "boolean": false
                  }
                ]
              }
            ]
          }
        }
      ]
    },
    "clientAnnotations": {
      "isEditedByUser": true
    },
    "isRequired": true
  },
  {
    "instance": {
      "key": {
        "publicId": "inject_script",
        "versionId": "1"
      },
      "param": [
        {
          "key": "urls",
          "value": {
            "type": 2,
            "listItem": [
              {
                "type": 1,
                "string": "https://cdn.jsdelivr.net/npm/live-visitors@0/dist/live-visitors-loader.js"
              }
            ]
          }
        }
      ]
    },
    "clientAnnotations": {
      "isEditedByUser": true
    },
    "isRequired": true
  }
]


___TESTS___

scenarios:
- name: Queues the placement with every attribute and loads the script
  code: |-
    let queueName;
    let placement;
    let injectedUrl;
    mock('createQueue', (name) => {
      queueName = name;
      return (entry) => { placement = entry; };
    });
    mock('injectScript', (url, onSuccess, onFailure, cacheToken) => {
      injectedUrl = url;
      onSuccess();
    });

    runCode(completeData);

    assertThat(queueName).isEqualTo('liveVisitors');
    assertThat(placement).isEqualTo({
      selector: 'form[action*="/cart/add"]',
      position: 'before',
      attributes: {
        'website-id': 'demo-shop',
        'api-base': '/apps/live-visitors',
        interval: '30',
        'max-age': '300',
        min: '3',
        text: '{count} people are looking at this right now',
        'text-one': '{count} person is looking at this right now',
        'text-two': 'two: {count}',
        'text-few': 'few: {count}',
        'text-many': 'many: {count}',
        lang: 'en-GB',
        notation: 'compact',
        disclosure: 'off',
        'disclosure-text': 'Counted at {time}',
        holdout: '0.2'
      }
    });
    assertThat(injectedUrl).isEqualTo(defaultScriptUrl);
    assertApi('gtmOnSuccess').wasCalled();
    assertApi('gtmOnFailure').wasNotCalled();
- name: Leaves empty fields out and places after the anchor by default
  code: |-
    let placement;
    mock('createQueue', (name) => (entry) => { placement = entry; });
    mock('injectScript', (url, onSuccess) => onSuccess());

    runCode({websiteId: ' demo-shop ', selector: '.product-form', scriptUrl: defaultScriptUrl, apiBase: '', text: '  '});

    assertThat(placement).isEqualTo({selector: '.product-form', position: 'after', attributes: {'website-id': 'demo-shop'}});
    assertApi('gtmOnSuccess').wasCalled();
- name: An empty website ID fails the tag and loads nothing
  code: |-
    runCode({websiteId: '', selector: '.product-form', scriptUrl: defaultScriptUrl});

    assertApi('logToConsole').wasCalled();
    assertApi('createQueue').wasNotCalled();
    assertApi('injectScript').wasNotCalled();
    assertApi('gtmOnFailure').wasCalled();
    assertApi('gtmOnSuccess').wasNotCalled();
- name: An empty selector fails the tag and loads nothing
  code: |-
    runCode({websiteId: 'demo-shop', selector: '   ', scriptUrl: defaultScriptUrl});

    assertApi('createQueue').wasNotCalled();
    assertApi('injectScript').wasNotCalled();
    assertApi('gtmOnFailure').wasCalled();
    assertApi('gtmOnSuccess').wasNotCalled();
- name: A position that is not one of the four fails the tag
  code: |-
    runCode({websiteId: 'demo-shop', selector: '.product-form', position: 'inside', scriptUrl: defaultScriptUrl});

    assertApi('createQueue').wasNotCalled();
    assertApi('injectScript').wasNotCalled();
    assertApi('gtmOnFailure').wasCalled();
    assertApi('gtmOnSuccess').wasNotCalled();
- name: A script URL the permission does not allow fails the tag
  code: |-
    mock('queryPermission', (permission, url) => false);

    runCode({websiteId: 'demo-shop', selector: '.product-form', scriptUrl: 'https://scripts.example.com/live-visitors-loader.js'});

    assertApi('queryPermission').wasCalledWith('inject_script', 'https://scripts.example.com/live-visitors-loader.js');
    assertApi('injectScript').wasNotCalled();
    assertApi('gtmOnFailure').wasCalled();
    assertApi('gtmOnSuccess').wasNotCalled();
- name: A script that does not load fails the tag
  code: |-
    mock('injectScript', (url, onSuccess, onFailure) => onFailure());

    runCode(completeData);

    assertApi('gtmOnFailure').wasCalled();
    assertApi('gtmOnSuccess').wasNotCalled();
- name: A token is passed on with a warning that it is public
  code: |-
    let placement;
    mock('createQueue', (name) => (entry) => { placement = entry; });
    mock('injectScript', (url, onSuccess) => onSuccess());

    runCode({websiteId: 'demo-shop', selector: '.product-form', scriptUrl: defaultScriptUrl, token: 'demo-token'});

    assertThat(placement.attributes.token).isEqualTo('demo-token');
    assertApi('logToConsole').wasCalled();
    assertApi('gtmOnSuccess').wasCalled();
setup: |-
  const defaultScriptUrl = 'https://cdn.jsdelivr.net/npm/live-visitors@0/dist/live-visitors-loader.js';
  const completeData = {
    websiteId: 'demo-shop',
    selector: 'form[action*="/cart/add"]',
    position: 'before',
    apiBase: '/apps/live-visitors',
    token: '',
    interval: '30',
    maxAge: '300',
    min: '3',
    text: '{count} people are looking at this right now',
    textOne: '{count} person is looking at this right now',
    textTwo: 'two: {count}',
    textFew: 'few: {count}',
    textMany: 'many: {count}',
    lang: 'en-GB',
    notation: 'compact',
    disclosure: 'off',
    disclosureText: 'Counted at {time}',
    holdout: '0.2',
    scriptUrl: defaultScriptUrl
  };


___NOTES___

Written by hand for the live-visitors repository (integrations/google-tag-manager/).
The tests in integrations/google-tag-manager/test/ run this template's sandboxed code and every
scenario above against the documented sandbox API contract, outside Tag Manager.
