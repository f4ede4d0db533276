// Runs SQL with DuckDB (the npm package under build/duckdb, make duckdb) and
// prints each result as JSON lines (big integers as strings of their exact
// digits), a line "---" after each statement's rows.
// usage: node duckdb-query.mjs 'SQL' ['SQL'...]   ('-': the SQL on stdin)
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = process.env.KATRA_DUCKDB_DIR || path.join(here, '../../build/duckdb');
const require = createRequire(path.join(root, 'node_modules/'));
const { DuckDBInstance } = require('@duckdb/node-api');

const sqls = process.argv.slice(2).map((s) => (s === '-' ? readFileSync(0, 'utf8') : s));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (const sql of sqls) {
	const reader = await con.runAndReadAll(sql);
	for (const row of reader.getRowObjectsJson())
		console.log(JSON.stringify(row));
	console.log('---');
}
