// The bundle without the disclosure (its file is never loaded): the sentence is explained nowhere.
export const disclosureFile = { get: (_host: unknown) => undefined, loaded: () => new Promise<never>(() => {}) };
