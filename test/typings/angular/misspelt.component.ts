// app.component.ts with `intervall` for `interval`, `detail.counts` for `detail.count`, and the
// element's own `state` set from outside: ngc (strictTemplates) must reject the detail (the two
// properties it cannot check, see typings.test.ts).
import { Component, CUSTOM_ELEMENTS_SCHEMA, output } from '@angular/core';
import 'live-visitors';

@Component({
  selector: 'app-visitors-badge',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `<live-visitors website-id="shop-42" [min]="5" [intervall]="30" (live-visitors-update)="count.emit($event.detail.counts)" /><live-visitors website-id="shop-42" [state]="'live'" />`,
})
export class VisitorsBadge {
  readonly count = output<number>();
}
