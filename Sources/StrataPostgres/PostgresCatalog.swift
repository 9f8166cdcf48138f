import Foundation
import Strata

/// One snapshot of a schema's catalog rows, read by one statement that returns them as a JSON document
/// (`pg_class`, `pg_attribute`, `pg_attrdef`, `pg_type`, `pg_index`, `pg_constraint`, `pg_trigger`), and
/// turned into `TableInfo` values by ``tableInfo(_:)``.
struct PostgresCatalog: Decodable {
    struct Relation: Decodable {
        let oid: Int64
        let name: String
        /// `r` table, `p` partitioned table, `v` view, `m` materialized view, `f` foreign table.
        let kind: String
        /// A view's `SELECT` (`pg_get_viewdef`).
        let view: String?
        /// `pg_relation_is_updatable`'s bits for a view (4 UPDATE, 8 INSERT, 16 DELETE); 0 otherwise.
        let updatable: Int
    }

    struct Column: Decodable {
        let table: Int64
        let number: Int
        let name: String
        /// `format_type`: `bigint`, `character varying(20)`, `timestamp with time zone`, `text[]`.
        let type: String
        /// `pg_type.typname` (`int8`, `varchar`, `timestamptz`, `_text`) and its category (`A` for arrays).
        let typeName: String
        let category: String
        let notNull: Bool
        let `default`: String?
        /// `a` or `d` for an identity column (ALWAYS, BY DEFAULT), empty otherwise.
        let identity: String
        /// `s` for a stored generated column, empty otherwise.
        let generated: String
    }

    struct Index: Decodable {
        let table: Int64
        let name: String
        let unique: Bool
        let primary: Bool
        let partial: Bool
        /// Key columns by attribute number, 0 for an expression (INCLUDE columns left out).
        let keys: [Int]
        /// Per key column: bit 1 is DESC.
        let options: [Int]
        /// `pg_get_indexdef`: the `CREATE INDEX` statement.
        let definition: String
        /// `p` or `u` when a PRIMARY KEY or UNIQUE constraint owns the index (`x` an exclusion constraint).
        let constraint: String?
    }

    struct ForeignKey: Decodable {
        let table: Int64
        let name: String
        let parent: Int64
        let parentName: String
        /// `confdeltype`: `a` NO ACTION, `r` RESTRICT, `c` CASCADE, `n` SET NULL, `d` SET DEFAULT.
        let onDeleteCode: String
        let columns: [String]
        let parentColumns: [String]

        var onDelete: String {
            switch onDeleteCode {
            case "r": "RESTRICT"
            case "c": "CASCADE"
            case "n": "SET NULL"
            case "d": "SET DEFAULT"
            default: "NO ACTION"
            }
        }
    }

    struct Trigger: Decodable {
        let table: Int64
        let definition: String
        let insteadOf: Bool
    }

    let relations: [Relation]
    let columns: [Column]
    let indices: [Index]
    let foreignKeys: [ForeignKey]
    let triggers: [Trigger]

    /// The statement that reads the snapshot: relations of the current schema, then everything that hangs
    /// on them, each part an ordered JSON array.
    static let sql = """
        WITH rel AS (
            SELECT c.oid, c.relname, c.relkind FROM pg_catalog.pg_class AS c
            WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind IN ('r', 'p', 'v', 'm', 'f'))
        SELECT json_build_object(
            'relations', (SELECT coalesce(json_agg(json_build_object(
                    'oid', r.oid::int8, 'name', r.relname, 'kind', r.relkind,
                    'view', CASE WHEN r.relkind IN ('v', 'm') THEN pg_get_viewdef(r.oid) END,
                    'updatable', CASE WHEN r.relkind = 'v' THEN pg_relation_is_updatable(r.oid::regclass, false) ELSE 0 END)
                ORDER BY r.relname), '[]'::json) FROM rel AS r),
            'columns', (SELECT coalesce(json_agg(json_build_object(
                    'table', a.attrelid::int8, 'number', a.attnum, 'name', a.attname,
                    'type', format_type(a.atttypid, a.atttypmod), 'typeName', t.typname, 'category', t.typcategory,
                    'notNull', a.attnotnull, 'default', pg_get_expr(d.adbin, d.adrelid),
                    'identity', a.attidentity, 'generated', a.attgenerated)
                ORDER BY a.attrelid, a.attnum), '[]'::json)
                FROM pg_catalog.pg_attribute AS a JOIN rel AS r ON r.oid = a.attrelid
                JOIN pg_catalog.pg_type AS t ON t.oid = a.atttypid
                LEFT JOIN pg_catalog.pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attnum > 0 AND NOT a.attisdropped),
            'indices', (SELECT coalesce(json_agg(json_build_object(
                    'table', i.indrelid::int8, 'name', ic.relname, 'unique', i.indisunique, 'primary', i.indisprimary,
                    'partial', i.indpred IS NOT NULL,
                    'keys', (SELECT coalesce(json_agg(k.n ORDER BY k.o), '[]'::json)
                             FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(n, o) WHERE k.o <= i.indnkeyatts),
                    'options', (SELECT coalesce(json_agg(k.n ORDER BY k.o), '[]'::json)
                                FROM unnest(i.indoption::int2[]) WITH ORDINALITY AS k(n, o) WHERE k.o <= i.indnkeyatts),
                    'definition', pg_get_indexdef(i.indexrelid), 'constraint', con.contype)
                ORDER BY ic.relname), '[]'::json)
                FROM pg_catalog.pg_index AS i JOIN rel AS r ON r.oid = i.indrelid
                JOIN pg_catalog.pg_class AS ic ON ic.oid = i.indexrelid
                LEFT JOIN pg_catalog.pg_constraint AS con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid
                    AND con.contype IN ('p', 'u', 'x')),
            'foreignKeys', (SELECT coalesce(json_agg(json_build_object(
                    'table', con.conrelid::int8, 'name', con.conname, 'parent', con.confrelid::int8, 'parentName', pc.relname,
                    'onDeleteCode', con.confdeltype,
                    'columns', (SELECT json_agg(a.attname ORDER BY k.o) FROM unnest(con.conkey) WITH ORDINALITY AS k(n, o)
                                JOIN pg_catalog.pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.n),
                    'parentColumns', (SELECT json_agg(a.attname ORDER BY k.o) FROM unnest(con.confkey) WITH ORDINALITY AS k(n, o)
                                      JOIN pg_catalog.pg_attribute AS a ON a.attrelid = con.confrelid AND a.attnum = k.n))
                ORDER BY con.conname), '[]'::json)
                FROM pg_catalog.pg_constraint AS con JOIN rel AS r ON r.oid = con.conrelid
                JOIN pg_catalog.pg_class AS pc ON pc.oid = con.confrelid
                WHERE con.contype = 'f'),
            'triggers', (SELECT coalesce(json_agg(json_build_object(
                    'table', tg.tgrelid::int8, 'definition', pg_get_triggerdef(tg.oid), 'insteadOf', (tg.tgtype & 64) <> 0)
                ORDER BY tg.tgname), '[]'::json)
                FROM pg_catalog.pg_trigger AS tg JOIN rel AS r ON r.oid = tg.tgrelid WHERE NOT tg.tgisinternal)
        )::text
        """

    /// Reads the snapshot (one statement, not cached: it runs once per sync).
    static func read(_ connection: PostgresConnection) throws -> PostgresCatalog {
        let statement = try connection.prepare(sql)
        guard try statement.step(), let text = statement.cell(at: 0).string else {
            throw PostgresError(sqlState: "XX000", message: "the catalog query returned no row", sql: sql)
        }
        statement.reset()
        do {
            return try JSONDecoder().decode(PostgresCatalog.self, from: Data(text.utf8))
        } catch {
            throw PostgresError(sqlState: "XX000", message: "the catalog query's document did not decode: \(error)", sql: sql)
        }
    }

    /// The relation of a name: exactly, else the only one that matches ignoring case.
    func relation(named name: String) -> Relation? {
        if let exact = relations.first(where: { $0.name == name }) { return exact }
        let folded = relations.filter { $0.name.lowercased() == name.lowercased() }
        return folded.count == 1 ? folded[0] : nil
    }

    /// Column names of a relation by attribute number.
    func columnNames(of table: Int64) -> [Int: String] {
        Dictionary(columns.filter { $0.table == table }.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// A relation as the neutral `TableInfo`. PostgreSQL tables have no rowid (`withoutRowID`: identity
    /// hangs on the primary key).
    func tableInfo(_ relation: Relation) -> TableInfo {
        let names = columnNames(of: relation.oid)
        let relationIndices = indices.filter { $0.table == relation.oid }
        let primary = relationIndices.first { $0.primary }?.keys ?? []
        let columnInfos = columns.filter { $0.table == relation.oid }.map { column in
            ColumnInfo(name: column.name, declaredType: column.type, notNull: column.notNull,
                       defaultSQL: column.identity.isEmpty ? column.default : nil,
                       primaryKeyPosition: (primary.firstIndex(of: column.number) ?? -1) + 1,
                       hidden: column.generated == "s" ? 3 : 0,
                       storage: Self.storage(typeName: column.typeName, category: column.category))
        }
        let indexInfos = relationIndices.map { index in
            IndexInfo(name: index.name, unique: index.unique,
                      origin: index.primary ? "pk" : index.constraint == "u" ? "u" : "c",
                      partial: index.partial, columns: index.keys.map { $0 == 0 ? nil : names[$0] },
                      descending: index.options.map { $0 & 1 != 0 },
                      hasExplicitCollation: index.definition.contains(" COLLATE "))
        }
        let keyInfos = foreignKeys.filter { $0.table == relation.oid }.flatMap { key in
            key.columns.enumerated().map { position, column in
                ForeignKeyInfo(from: column, table: key.parentName, onDelete: key.onDelete,
                               to: position < key.parentColumns.count ? key.parentColumns[position] : nil, sequence: position)
            }
        }
        let relationTriggers = triggers.filter { $0.table == relation.oid }
        let isView = relation.kind == "v" || relation.kind == "m"
        var info = TableInfo(name: relation.name, columns: columnInfos, indices: indexInfos, withoutRowID: true,
                             foreignKeys: keyInfos, isView: isView,
                             isWritableView: isView && (relation.updatable & 12 != 0 || relationTriggers.contains { $0.insteadOf }))
        info.triggerSQL = relationTriggers.map(\.definition)
        if isView, let select = relation.view {
            info.createSQL = "CREATE VIEW \(PostgresDialect().quote(relation.name)) AS " + select.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return info
    }

    /// How values of a type read back in Strata's terms: whole numbers and booleans as integers, floating
    /// point as reals, `numeric` and `money` as numeric, `bytea` as blobs, everything else (text, dates, UUIDs,
    /// JSON, arrays) as text.
    static func storage(typeName: String, category: String) -> Affinity {
        switch typeName {
        case "int2", "int4", "int8", "bool", "oid": .integer
        case "float4", "float8": .real
        case "numeric", "money": .numeric
        case "bytea": .blob
        default: .text
        }
    }
}
