"""The bounded turn loop: the flow, its events, the request, lookups, continuing, the demo."""
