/** The owner page's stylesheet: plain, readable, served as `owner.css` under the page's policy. */
export const OWNER_PAGE_STYLES = `body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #fafafa; }
main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
form { display: grid; gap: 0.75rem; }
label, .field { display: grid; gap: 0.25rem; font-weight: 600; }
small { font-weight: 400; color: #555; }
input, textarea { font: inherit; padding: 0.4rem 0.5rem; border: 1px solid #999; border-radius: 4px; }
[aria-invalid="true"] { border-color: #b00020; outline: 2px solid #b00020; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
button { font: inherit; padding: 0.4rem 1rem; }
pre { background: #eee; padding: 0.75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
#status:empty { display: none; }
#status.problem { color: #b00020; font-weight: 600; }
[hidden] { display: none !important; }
fieldset { display: grid; gap: 0.75rem; border: 1px solid #ccc; border-radius: 4px; }
.hint { margin: 0; font-size: 0.9em; color: #555; }
select { font: inherit; padding: 0.4rem 0.5rem; }
`;
