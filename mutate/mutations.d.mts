import type { Mutation } from './list.mjs';
/** The mutations `npm run mutate` applies (mutate/mutations.mjs). */
declare const mutations: Mutation[];
export default mutations;
