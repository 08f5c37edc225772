// The bundle without impressions: nothing watches the element.
export class ImpressionWatch {}
