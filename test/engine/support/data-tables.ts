/**
 * n8n's Data Tables in memory, for in-process runs of workflows with the Data table node
 * (n8n-nodes-base.dataTable): the `DataTableProxyProvider` n8n's server hands the engine, with the
 * behaviour of n8n 2.41.1's DataTableService and its SQL that those workflows rely on:
 * - a name unique per project, found by the node "by name" with a case-insensitive substring match;
 * - values checked against the column's type (unknown column, not a number, not a date: an error),
 *   dates stored as instants and returned as Date;
 * - filters `eq, neq, lt, lte, gt, gte` (NULL never matches a comparison; `eq null` is IS NULL),
 *   `isEmpty` / `isNotEmpty` (NULL or ''), `like` / `ilike` with % wildcards, combined by and / or;
 * - every update and delete applies its filter to the rows as they are when it runs, and returns
 *   the rows it changed: one statement, as the database runs it.
 * What it does not try to be: a proof of n8n's own atomicity or of its SQL on SQLite and PostgreSQL;
 * test/e2e/dead-letter-replay.e2e.mjs runs the same workflows against a real n8n.
 */
import type {
	DataTable,
	DataTableColumn,
	DataTableColumnJsType,
	DataTableColumnType,
	DataTableFilter,
	DataTableProxyProvider,
	DataTableRow,
	DataTableRowReturn,
	IDataTableProjectAggregateService,
	IDataTableProjectService,
	ListDataTableOptions,
	ListDataTableRowsOptions,
} from 'n8n-workflow';

const PROJECT_ID = 'engine-test-project';

type StoredRow = DataTableRowReturn;

interface StoredTable {
	table: DataTable;
	rows: StoredRow[];
	nextId: number;
}

const SYSTEM_TYPES: Record<string, DataTableColumnType> = { id: 'number', createdAt: 'date', updatedAt: 'date' };

export class InMemoryDataTables implements DataTableProxyProvider {
	private readonly tables = new Map<string, StoredTable>();
	private tableCounter = 0;

	/** The rows of the table with this exact name (copies), in insertion order. */
	rowsOf(name: string): DataTableRowReturn[] {
		const stored = [...this.tables.values()].find((t) => t.table.name === name);
		return stored ? stored.rows.map((r) => ({ ...r })) : [];
	}

	tableNames(): string[] {
		return [...this.tables.values()].map((t) => t.table.name);
	}

	/** Changes rows as a person would in the table view (for tests: "set retryAt to now"). */
	editRows(name: string, change: (row: DataTableRowReturn) => void): void {
		const stored = [...this.tables.values()].find((t) => t.table.name === name);
		stored?.rows.forEach(change);
	}

	async getDataTableAggregateProxy(): Promise<IDataTableProjectAggregateService> {
		return {
			getProjectId: () => PROJECT_ID,
			createDataTable: async ({ name, columns }) => {
				if ([...this.tables.values()].some((t) => t.table.name === name)) throw new Error(`Data table with name "${name}" already exists in this project`);
				const id = `table-${++this.tableCounter}`;
				const now = new Date();
				const table: DataTable = {
					id,
					name,
					projectId: PROJECT_ID,
					createdAt: now,
					updatedAt: now,
					columns: columns.map((c, index) => ({ id: `${id}-col-${index}`, name: c.name, type: c.type, index: c.index ?? index, dataTableId: id })),
				};
				this.tables.set(id, { table, rows: [], nextId: 1 });
				return table;
			},
			getManyAndCount: async (options: ListDataTableOptions) => {
				const names = options.filter?.name === undefined ? [] : [options.filter.name].flat();
				let data = [...this.tables.values()].map((t) => t.table).filter((t) => names.every((n) => t.name.toLowerCase().includes(String(n).toLowerCase())));
				const count = data.length;
				data = data.slice(options.skip ?? 0, options.take === undefined ? undefined : (options.skip ?? 0) + options.take);
				return { count, data };
			},
			deleteDataTableAll: async () => {
				this.tables.clear();
				return true;
			},
		};
	}

	async getDataTableProxy(_workflow: unknown, _node: unknown, dataTableId: string): Promise<IDataTableProjectService> {
		const stored = this.tables.get(dataTableId);
		if (!stored) throw new Error(`Could not find the data table: '${dataTableId}'`);
		const columns = () => stored.table.columns;
		const typeOf = (name: string): DataTableColumnType | undefined => SYSTEM_TYPES[name] ?? columns().find((c) => c.name === name)?.type;
		const values = (row: DataTableRow): DataTableRow => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, cell(name, value, typeOf(name), false)]));
		const matching = (filter: DataTableFilter | undefined) => stored.rows.filter((row) => matches(row, filter, typeOf));
		return {
			updateDataTable: async ({ name }) => {
				stored.table.name = name;
				return true;
			},
			deleteDataTable: async () => this.tables.delete(dataTableId),
			getColumns: async () => columns().map((c) => ({ ...c })),
			addColumn: async ({ name, type, index }) => {
				const column: DataTableColumn = { id: `${dataTableId}-col-${columns().length}`, name, type, index: index ?? columns().length, dataTableId };
				stored.table.columns.push(column);
				return column;
			},
			moveColumn: async () => true,
			deleteColumn: async (columnId) => {
				stored.table.columns = columns().filter((c) => c.id !== columnId);
				return true;
			},
			getManyRowsAndCount: async (dto: Partial<ListDataTableRowsOptions>) => {
				let rows = matching(dto.filter);
				if (dto.sortBy) {
					const [column, direction] = dto.sortBy;
					const sign = direction === 'DESC' ? -1 : 1;
					rows = [...rows].sort((a, b) => sign * compare(a[column], b[column]));
				}
				const skip = dto.skip ?? 0;
				return { count: rows.length, data: rows.slice(skip, dto.take === undefined ? undefined : skip + dto.take).map((r) => ({ ...r })) };
			},
			insertRows: async (rows, returnType) => {
				const now = new Date();
				const inserted = rows.map((row) => {
					const full: StoredRow = { ...Object.fromEntries(columns().map((c) => [c.name, null])), ...values(row), id: stored.nextId++, createdAt: now, updatedAt: now };
					stored.rows.push(full);
					return full;
				});
				if (returnType === 'count') return { success: true, insertedRows: inserted.length } as never;
				if (returnType === 'id') return inserted.map((r) => ({ id: r.id })) as never;
				return inserted.map((r) => ({ ...r })) as never;
			},
			updateRows: async ({ filter, data }) => {
				if (filter.filters.length === 0) throw new Error('Filter must not be empty');
				const changes = values(data);
				const updated = matching(filter);
				for (const row of updated) Object.assign(row, changes, { updatedAt: new Date() });
				return updated.map((r) => ({ ...r }));
			},
			upsertRow: async ({ filter, data }) => {
				const changes = values(data);
				const updated = matching(filter);
				if (updated.length === 0) {
					const now = new Date();
					const row: StoredRow = { ...Object.fromEntries(columns().map((c) => [c.name, null])), ...changes, id: stored.nextId++, createdAt: now, updatedAt: now };
					stored.rows.push(row);
					return [{ ...row }];
				}
				for (const row of updated) Object.assign(row, changes, { updatedAt: new Date() });
				return updated.map((r) => ({ ...r }));
			},
			deleteRows: async ({ filter }) => {
				if (filter.filters.length === 0) throw new Error('Filter is required for delete operations to prevent accidental deletion of all data');
				const deleted = matching(filter);
				stored.rows = stored.rows.filter((r) => !deleted.includes(r));
				return deleted.map((r) => ({ ...r }));
			},
			clearRows: async () => {
				const deletedCount = stored.rows.length;
				stored.rows = [];
				return { deletedCount };
			},
		};
	}

	/** What the engine harness puts into additionalData for the Data table node. */
	additionalData(): Record<string, unknown> {
		return { 'data-table': { dataTableProxyProvider: this }, dataTableProjectId: PROJECT_ID };
	}
}

/** A value as the service stores it: checked against the column type; dates as instants. */
function cell(name: string, value: DataTableColumnJsType, type: DataTableColumnType | undefined, forFilter: boolean): DataTableColumnJsType {
	if (type === undefined) throw new Error(`unknown column name '${name}'${forFilter ? ' in the filter' : ''}`);
	if (value === null) return null;
	switch (type) {
		case 'number': {
			const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
			if (!Number.isFinite(n)) throw new Error(`value '${String(value)}' does not match column type 'number'`);
			return n;
		}
		case 'boolean':
			if (typeof value !== 'boolean') throw new Error(`value '${String(value)}' does not match column type 'boolean'`);
			return value;
		case 'date': {
			const date = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date(NaN);
			if (Number.isNaN(date.getTime())) throw new Error(`value '${String(value)}' does not match column type 'date'`);
			return date;
		}
		default:
			return typeof value === 'string' ? value : String(value);
	}
}

function compare(a: unknown, b: unknown): number {
	if (a === b) return 0;
	if (a === null || a === undefined) return -1;
	if (b === null || b === undefined) return 1;
	const x = a instanceof Date ? a.getTime() : a;
	const y = b instanceof Date ? b.getTime() : b;
	return (x as number | string) < (y as number | string) ? -1 : (x as number | string) > (y as number | string) ? 1 : 0;
}

function likePattern(value: string, flags: string): RegExp {
	const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
	return new RegExp(`^${escaped}$`, flags);
}

function matches(row: StoredRow, filter: DataTableFilter | undefined, typeOf: (name: string) => DataTableColumnType | undefined): boolean {
	if (!filter || filter.filters.length === 0) return true;
	const results = filter.filters.map(({ columnName, condition, value }) => {
		const stored = row[columnName] ?? null;
		if (condition === 'isEmpty') return stored === null || stored === '';
		if (condition === 'isNotEmpty') return stored !== null && stored !== '';
		if (value === null) {
			if (condition === 'eq') return stored === null;
			if (condition === 'neq') return stored !== null;
		}
		const wanted = cell(columnName, value, typeOf(columnName), true);
		switch (condition) {
			case 'eq':
				return stored !== null && compare(stored, wanted) === 0;
			case 'neq':
				return stored === null || compare(stored, wanted) !== 0;
			case 'lt':
				return stored !== null && compare(stored, wanted) < 0;
			case 'lte':
				return stored !== null && compare(stored, wanted) <= 0;
			case 'gt':
				return stored !== null && compare(stored, wanted) > 0;
			case 'gte':
				return stored !== null && compare(stored, wanted) >= 0;
			case 'like':
				return typeof stored === 'string' && likePattern(String(wanted), '').test(stored);
			case 'ilike':
				return typeof stored === 'string' && likePattern(String(wanted), 'i').test(stored);
			default:
				throw new Error(`Unsupported filter condition: ${condition as string}`);
		}
	});
	return filter.type === 'or' ? results.some(Boolean) : results.every(Boolean);
}
