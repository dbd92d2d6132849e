"""The read side: snapshot loads, commit notifications and the read-model queries."""
