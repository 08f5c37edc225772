// The bundle without the disclosure's behaviour: a span that nothing opens or closes (so its time stays in digits).
export const disclosureFor = (_host: HTMLElement, _opening: () => void): HTMLElement => document.createElement('span');
