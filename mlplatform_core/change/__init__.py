"""What an update of a stack does, from two plan documents: create, update, roll, replace or delete per resource,
and what that means for the node groups and the workloads of the placement proof (`mlplatform diff`)."""
