// A Vue 3 app using <live-visitors>, built by Vite for the interop test (no SFC plugin): a runtime-
// compiled template (the way SFC templates compile) with `compilerOptions.isCustomElement`, and a
// render function with `h()`. Vue sets a prop as a property when the element has it (`key in el`),
// else as an attribute; `onLiveVisitorsUpdate` / `@live-visitors-update` listen to `live-visitors-update`.
// The page loads the script-tag bundle in a module script before this one, so the element is defined first.
import { createApp, defineComponent, h, ref } from 'vue';
import type { LiveVisitorsUpdateEvent } from '../../../src/index.js';

const params = new URLSearchParams(location.search);
const websiteId = params.get('websiteId')!;
const token = params.get('token')!;
const apiBase = params.get('apiBase')!;

const heardByTemplate = ref<number | null>(null);
const heardByRenderFunction = ref<number | null>(null);
const min = ref(1000);

const RenderFunction = defineComponent({
  setup() {
    return () =>
      h('live-visitors', {
        websiteId,
        token,
        apiBase,
        onLiveVisitorsUpdate: (event: LiveVisitorsUpdateEvent) => {
          heardByRenderFunction.value = event.detail.count;
        },
      });
  },
});

const app = createApp({
  components: { RenderFunction },
  setup: () => ({ websiteId, token, apiBase, min, heardByTemplate, heardByRenderFunction, lowerMin: () => (min.value = 1) }),
  template: `
    <main>
      <h1>Vue 3 shop</h1>
      <p id="by-template">
        <live-visitors :website-id="websiteId" :token="token" :api-base="apiBase" :min="min"
          @live-visitors-update="heardByTemplate = $event.detail.count"><span slot="fallback">Ships tomorrow.</span></live-visitors>
      </p>
      <p id="by-render-function"><RenderFunction /></p>
      <p>Heard by the template: <output id="heard-by-template">{{ heardByTemplate ?? 'nothing' }}</output></p>
      <p>Heard by the render function: <output id="heard-by-render-function">{{ heardByRenderFunction ?? 'nothing' }}</output></p>
      <button id="lower-min" type="button" @click="lowerMin">Show any count</button>
    </main>`,
});
app.config.compilerOptions.isCustomElement = (tag) => tag === 'live-visitors';
app.mount('#root');
