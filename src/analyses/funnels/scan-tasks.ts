import { jobPartCount, listTask, rowChunkCount } from "../parallel/scan-task.ts";
import { funnelChunkRows, funnelPart, type ChunkRows, type FunnelColumns, type FunnelPartJob, type FunnelRowsJob, type PartResult } from "./partition.ts";

/** The funnel's row chunks (pass 1): each chunk's kept rows by part, put in chunk order by the caller. */
export const funnelRowsTask = listTask<FunnelColumns, FunnelRowsJob, ChunkRows>("funnelRows", rowChunkCount, (cols, job, k, claim) => funnelChunkRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, k));

/** The funnel's parts of the actors (pass 2): counted attempts or trends tallies. */
export const funnelPartsTask = listTask<FunnelColumns, FunnelPartJob, PartResult>("funnel", jobPartCount, (cols, job, k) => funnelPart(cols, job, k));
