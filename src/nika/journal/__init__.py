"""The record a run leaves and what may vouch for it: journal frames, the chain walk, task
identity, resume, the run receipt and its evidence, and the untrusted-input decoding they
all start from. It sits below the run (it imports nothing above `agent`)."""
