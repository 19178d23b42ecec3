-- parent_results: the results of a job's parents that are still kept (see includes/results.lua), for its handler.
-- KEYS[1] results hash
-- ARGV[1] id
-- Returns { parent_1, result_1, ... }: the parents the job named at enqueue that have a result kept, in that order
--   ({} for a job without parents, or whose parents left none).
-- @include results
return results_of_parents(KEYS[1], ARGV[1])
