"""The review memory: the log, scheduling (FSRS), the replayed memory, the review commands."""
