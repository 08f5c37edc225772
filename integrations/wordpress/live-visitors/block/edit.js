/**
 * The Live visitors block in the editor: its settings in the sidebar and a plain preview.
 * Written for the browser as it is, without a build step: no JSX, no imports.
 * The block is rendered on the server (render.php), so it saves nothing of its own.
 */
((blocks, element, blockEditor, components, i18n) => {
  const el = element.createElement;
  const __ = i18n.__;

  /** The sentence the preview shows (the block's own, else the element's English default), every {count} replaced as on the page. */
  const preview = (attributes) => {
    const sentence = attributes.sentence || __('{count} people are browsing this shop right now', 'live-visitors');
    return sentence.replaceAll('{count}', attributes.compactNumbers ? '1.2K' : '23');
  };

  const settings = (attributes, setAttributes) =>
    el(
      components.PanelBody,
      { title: __('Live visitors', 'live-visitors') },
      el(components.RangeControl, {
        label: __('Show from this many visitors (min)', 'live-visitors'),
        min: 1,
        max: 100,
        value: attributes.min,
        onChange: (min) => setAttributes({ min: min || 1 }),
      }),
      el(components.TextControl, {
        label: __('Sentence ({count} is the number; empty: the site default)', 'live-visitors'),
        value: attributes.sentence,
        onChange: (sentence) => setAttributes({ sentence }),
      }),
      el(components.ToggleControl, {
        label: __('Compact numbers (1.2K)', 'live-visitors'),
        checked: attributes.compactNumbers,
        onChange: (compactNumbers) => setAttributes({ compactNumbers }),
      }),
      el(components.ToggleControl, {
        label: __('Explain the number on hover or tap', 'live-visitors'),
        checked: attributes.explanation,
        onChange: (explanation) => setAttributes({ explanation }),
      }),
      el(components.RangeControl, {
        label: __('Holdout: share of shoppers who see nothing (experiment control group)', 'live-visitors'),
        min: 0,
        max: 0.9,
        step: 0.05,
        value: attributes.holdout,
        onChange: (holdout) => setAttributes({ holdout: holdout || 0 }),
      }),
    );

  blocks.registerBlockType('live-visitors/live-visitors', {
    edit: (props) =>
      el(
        element.Fragment,
        null,
        el(blockEditor.InspectorControls, null, settings(props.attributes, props.setAttributes)),
        el('p', blockEditor.useBlockProps(), `● ${preview(props.attributes)}`),
      ),
    save: () => null,
  });
})(window.wp.blocks, window.wp.element, window.wp.blockEditor, window.wp.components, window.wp.i18n);
