import '../src/define.js';
import { countRealtimeRequests } from './emulator-controls.js';

countRealtimeRequests((count) => (document.getElementById('requests')!.textContent = String(count)));
