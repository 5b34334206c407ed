import { jobPartCount, listTask, rowChunkCount, tallyTask } from "../parallel/scan-task.ts";
import { newItemCodes, pathsActorsPart, pathsChunkRows, pathsItemRows, pathsPart, type PartActors, type PartEdges, type PathsActorsJob, type PathsChunkRows, type PathsColumns, type PathsItemCodes, type PathsItemsColumns, type PathsItemsJob, type PathsPartJob, type PathsRowsJob } from "./partition.ts";

/** The paths' row items (pass 0): each thread's chunks' codes and the detail values they use. */
export const pathsItemsTask = tallyTask<PathsItemsColumns, PathsItemsJob, PathsItemCodes>("pathsItems", newItemCodes, pathsItemRows);

/** The paths' row chunks (pass 1): each chunk's rows with an item by part, put in chunk order by the caller. */
export const pathsRowsTask = listTask<PathsColumns, PathsRowsJob, PathsChunkRows>("pathsRows", rowChunkCount, (cols, job, k, claim) => pathsChunkRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, k));

/** The paths' parts (pass 2): edge tallies, summed by the caller. */
export const pathsPartsTask = listTask<PathsColumns, PathsPartJob, PartEdges>("paths", jobPartCount, (cols, job, k) => pathsPart(cols, job, k));

/** The paths' parts for an actors request (pass 2): each person's count for the point. */
export const pathsActorsTask = listTask<PathsColumns, PathsActorsJob, PartActors>("pathsActors", jobPartCount, (cols, job, k) => pathsActorsPart(cols, job, k));
