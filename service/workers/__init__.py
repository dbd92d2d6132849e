"""Background workers: the relay, the projector and the leader election they share."""
