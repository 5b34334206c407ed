const orig = globalThis.fetch;
globalThis.fetch = async (...a) => { try { return await orig(...a); } catch (e) { process.stderr.write(`FETCH ${String(a[0]).slice(0,120)} ${e.cause?.code} ${e.cause?.message}\n`); throw e; } };
