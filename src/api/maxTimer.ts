/** The longest delay setTimeout honours: past it Node warns and fires after 1 ms, so a long wait would poll. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
