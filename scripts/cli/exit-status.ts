// How a command can end, and the exit status each gives: the one place that decides them.

/** `refused`: a usage error, or input the command cannot take at all (a side that is no side). */
export const EXIT_STATUS = { done: 0, failed: 1, differs: 1, refused: 2 } as const;
