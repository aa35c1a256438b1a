"""The bottom layer: config, the home folder, strict JSON, durable files, inert text, language."""
