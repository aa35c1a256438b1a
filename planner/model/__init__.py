"""The model: the client, the Chat and Responses wires, the neutral reply, keys, costs."""
