"""Review plans: the checked plan, what changed, the plan files and their listing."""
