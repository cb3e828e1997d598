// A module with no process function in it.
export const answer = 42
