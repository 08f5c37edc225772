// The bundle without the disclosure's behaviour: a detached, never-shown span.
export class Disclosure {
  readonly element = document.createElement('span');
  reset(): void {}
}
