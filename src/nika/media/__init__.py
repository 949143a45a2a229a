"""Media assets: what the renderers and the media providers share (writing an asset atomically,
the hash-equal skip; PNG reading and writing). Below `tools/` (which serves the builtins) and
`check/` (which reads their op tables); imports only the bottom layer and `syntax`."""
