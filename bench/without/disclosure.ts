// The bundle without the disclosure's behaviour: a span that nothing opens or closes.
export const disclosureFor = (_host: HTMLElement): HTMLElement => document.createElement('span');
