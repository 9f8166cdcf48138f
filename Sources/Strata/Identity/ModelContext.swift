
/// A database's model state: one ``TypeRegistry`` per model type, the rows changed since the last
/// reconcile (from SQLite's update hook), the instances touched in the open transaction, and the
/// change observers.
///
/// The fields the update hook touches on every written row skip dynamic exclusivity checks: the hook runs
/// synchronously inside a statement's step, on the handle's isolation domain, while no Swift access to them is
/// open (each library access is a plain read or assignment that completes before stepping).
final class ModelContext {
    /// On an engine other than SQLite (Database+RemoteModels.swift): each live instance's row as the engine
    /// spelled it when the instance last read or wrote it, and when it read it, by instance (one map: a
    /// fetched row costs one insert); what an UPDATE checks is unchanged.
    var remoteRows: [ObjectIdentifier: RemoteRow] = [:]
    /// The size of ``remoteRows`` after its last pruning of instances gone.
    var remoteRowsAfterPrune = 0
    /// The row a conflicting instance met (its next save throws the conflict and takes the row).
    var remoteConflictRows: [ObjectIdentifier: [String?]] = [:]
    /// How many raw statements that may write the handle ran on such an engine; an instance whose row was
    /// read before the last one reads it again when looked up by key (``RemoteRow/readAt``).
    var remoteRawWrites = 0
    /// The writes of the open transaction on such an engine, for a rollback to undo in the live instances
    /// (`keyAssigned`: an insert whose integer key the engine gave, which a rollback sets back to 0).
    var remoteWrites: [(object: ModelObject, registry: TypeRegistry, inserted: Bool, keyAssigned: Bool, depth: Int)] = []
    /// The transaction levels raw SQL opened on such an engine (`BEGIN`: an empty name; `SAVEPOINT`: its
    /// name as the engine folds it), each with the write depth it began (``Database/remoteWriteDepth``).
    var remoteRawLevels: [(name: String, depth: Int)] = []

    weak var database: Database?
    var registries: [ObjectIdentifier: TypeRegistry] = [:] {
        didSet { lastRegistry = nil }
    }
    /// The registry asked for last (saves in a loop ask for the same one), before the dictionary.
    /// The model types whose schema sync is under way (models whose foreign keys point at each other sync
    /// each other's tables first: the cycle stops here).
    var syncing: Set<ObjectIdentifier> = []
    /// Unretained: `registries` holds it, and clears it when it changes.
    @exclusivity(unchecked) var lastRegistry: (type: ObjectIdentifier, registry: Unmanaged<TypeRegistry>)?
    /// Every registry mapped onto a table (several model types may share one), by lowercased name.
    var registriesByTable: [String: [TypeRegistry]] = [:]
    /// `PRAGMA schema_version` when the registries were last synced.
    var schemaVersion: Int64 = -1
    var needsResync = false
    /// Whether this handle prepared a DROP TABLE or an ALTER TABLE (a rebuild, a rename, a dropped column
    /// move rows SQLite's update hook never reports): the live instances follow when the transaction commits
    /// (``Database/followSchemaChange()``).
    /// (A stored flag, not `!movedTables.isEmpty`: it is read on every save and fetch, and a plain flag
    /// costs no access to the set.)
    @exclusivity(unchecked) private(set) var schemaMoved = false
    /// The tables (lowercased) of the DROP TABLE and ALTER TABLE statements behind `schemaMoved`.
    var movedTables: Set<String> = [] {
        didSet { schemaMoved = !movedTables.isEmpty }
    }
    /// Set while migrations run: they are followed once, at the end (a migration outside a transaction
    /// commits statement by statement, and its instances follow the table it leaves, not one half way).
    var followsSchemaLater = false
    /// Inside a transaction, the models whose table a sync left unchanged (``Database/resyncAll(for:)``), and
    /// the schema version then.
    var waitingSync: (version: Int64, models: Set<ObjectIdentifier>)?
    /// Set when, after a schema change, a model's table needed a write to fit it again: its next sync
    /// (on its next use) has every live instance read its row again.
    var refreshAfterResync = false
    /// The formats of join-table columns holding keys (``Database/joinColumnFormat(table:column:holding:)``),
    /// by lowercased table and column; emptied when the schema changes.
    var joinColumnFormats: [String: ColumnFormat] = [:]
    /// The entries of `joinColumnFormats` decided while the column and the key column it refers to held no
    /// value (the declared type's default), or taken from a mapping that was: decided again once rows come.
    var undecidedJoinColumns: Set<String> = []
    /// Whether join-table columns have no type (``Database/joinColumnIsUntyped(table:column:)``), by
    /// lowercased table and column; emptied when the schema changes.
    var joinColumnsUntyped: [String: Bool] = [:]
    /// While a value observation fetches: the lowercased names of the tables its statements read.
    @exclusivity(unchecked) var readRegion: Set<String>?
    /// Set on a pool reader when the writer changed the schema after the reader's snapshot began.
    var needsFreshSnapshot = false
    /// `PRAGMA data_version` when this handle last merged other connections' commits (nil: never read).
    var dataVersion: Int64?
    /// Set while raw SQL that may REPLACE rows runs: rows it replaced through a UNIQUE index are removed
    /// without an update-hook report, so the live instances of tables it inserted into are checked.
    var mayReplace = false

    /// A row change reported by the update hook.
    struct PendingChange {
        let operation: RowOperation
        let table: String
        let rowID: Int64
        /// Made by the library's own save/delete, which already updated the instance.
        let own: Bool
        /// For an own write to a table several model types share: the registry that made it (the others'
        /// live instances of the row still need the change).
        var writer: ObjectIdentifier? = nil
    }
    @exclusivity(unchecked) var pending: [PendingChange] = []
    /// Counts writes this handle saw (rows the update hook reported, its own inserts, raw SQL, other
    /// connections' commits): a relationship that found no row for its key trusts that only while the
    /// count is unchanged.
    @exclusivity(unchecked) var changeCount = 0
    /// Set while the library writes one row itself (`ownTable`, `ownRowID`; any rowid for an insert), so
    /// the hook does not schedule a refresh for that row.
    @exclusivity(unchecked) var ownWrite = false
    @exclusivity(unchecked) var ownRowID: Int64 = 0
    /// Set for an insert whose rowid is not known beforehand: the first INSERT into the table is own.
    @exclusivity(unchecked) var ownAnyRow = false
    /// Whether the own write is an INSERT (else an UPDATE or DELETE): only a change of that kind is own, so
    /// a trigger's DELETE before the insert, or its INSERT during an update, is not mistaken for it.
    @exclusivity(unchecked) var ownInsert = false
    /// Set when the writing registry shares its table with other model types (``TypeRegistry/sharesTable``):
    /// the own change is then still applied to their live instances.
    @exclusivity(unchecked) var ownShared = false
    @exclusivity(unchecked) var ownRegistry: ObjectIdentifier?
    /// Whether the open transaction has merged other connections' commits into the live instances: set when
    /// a transaction of the library's begins or when the first model call inside a transaction begun by raw
    /// SQL merges; cleared by the commit and rollback hooks, whichever way the transaction ended.
    @exclusivity(unchecked) var transactionMerged = false
    /// The instance whose conflict a save last reported (it holds the committed values).
    var lastConflicted: ObjectIdentifier?
    /// How many registries map WITHOUT ROWID tables (whose writes the update hook never reports).
    var withoutRowIDRegistries = 0
    /// Set after a statement failed: pending changes may have been undone and are checked, not trusted.
    var verifyPending = false
    /// The registry's table name; read only while `ownWrite` is set, when that registry is alive.
    @exclusivity(unchecked) var ownTable: UnsafePointer<CChar>?
    var committed = false
    /// Set by the authorizer between a DROP TABLE/VIEW check and the DELETE check that follows it.
    var authorizingDrop = false
    /// Set while a transaction ``Database/transaction(_:_:)`` began is open: the authorizer then refuses
    /// statements that would end it (COMMIT, END, ROLLBACK) other than the library's own, which clears this
    /// first. A COMMIT in a block would otherwise commit half its work and leave the rest to autocommit.
    var ownsTransaction = false
    /// The BEGIN, COMMIT or ROLLBACK the authorizer refused last, for the error's message.
    var refusedTransactionStatement: String?
    /// Set while a migration runs in its transaction with foreign keys on: the authorizer then refuses
    /// `PRAGMA foreign_keys = OFF`, which SQLite ignores inside a transaction (a rebuild's DROP TABLE would
    /// still run the ON DELETE actions of the tables pointing at the dropped one, silently).
    var refusesForeignKeysOff = false
    var rolledBack = false
    /// How many of `pending` the last commit hook saw: changes a later rollback hook leaves alone (an earlier
    /// transaction of the same script committed them). Back to 0 whenever `pending` is emptied, and after a
    /// failed statement (a COMMIT that failed after its hook commits nothing).
    var pendingCommitted = 0
    /// The savepoints raw SQL opened in the open transaction, innermost last, each with the changes recorded
    /// for observers when it began: a `ROLLBACK TO` (which fires no hook) brings those back.
    var savepoints: [(name: String, changes: [String: DatabaseChange])] = []
    /// Instances deleted in the open transaction, kept alive until it ends so a rollback can restore them.
    /// (Instances updated or inserted need no list: a rollback refreshes every live instance.)
    var deletedInTransaction: [ObjectIdentifier: ModelObject] = [:]
    /// The instances of `deletedInTransaction` in the order they were deleted (one may be there twice,
    /// when a rollback brought it back and it was deleted again): of two deleted instances of one key (one
    /// deleted, its key saved again by another, deleted in turn), the row a rollback brings back is the
    /// one deleted last.
    var deletionOrder: [ObjectIdentifier] = []
    /// Instances inserted in the open transaction, kept alive until it ends so a rollback can make them
    /// unsaved.
    @exclusivity(unchecked) var insertedInTransaction: [InsertedInstance] = []
    /// Instances whose save failed in the open transaction, by the depth of the block that tried: when that
    /// block rolls back they read their rows again without their unsaved changes (the block's edits are
    /// undone with it, so a retried block applies them once).
    var refusedInTransaction: [ObjectIdentifier: (object: ModelObject, depth: Int)] = [:]
    /// The depth of the transaction (or savepoint) Strata opened around the save or batch being made, nil
    /// outside one (a raw BEGIN's transaction has depth 0 too): a save that takes more than one statement
    /// needs no savepoint of its own there, since that transaction's rollback undoes all of it.
    var ownSaveDepth: Int?
    /// Set when a failed statement ended a transaction that was open before it (a trigger's RAISE(ROLLBACK),
    /// an ON CONFLICT ROLLBACK constraint, ``ResultCode/full``); cleared when a transaction block begins or ends and
    /// when a refused save reads it. A save refused that way inside a raw `BEGIN` then gives its instances
    /// their rows again, as inside a block: the transaction its edits were made for is gone.
    var failureEndedTransaction = false

    @exclusivity(unchecked) var observers: [Int: ([DatabaseChange]) -> Void] = [:]
    var nextObserverID = 0
    /// Changes of the open transaction, by table, delivered after commit.
    var transactionChanges: [String: DatabaseChange] = [:]
    /// Set when a statement changed rows of WITHOUT ROWID tables since the last reconciliation: the changes
    /// are delivered when the transaction ends even if the update hook reported nothing.
    var silentWrites = false
    /// Which tables are WITHOUT ROWID (lowercased name -> whether), as last seen (see
    /// ``Database/silentTables(_:)``).
    var silentTables: [String: Bool] = [:]
    /// What the open transaction of a handle on another engine wrote, for observers.
    var remoteLog = RemoteChangeLog()
    /// ``Database/traceStatements(_:)``'s observers on another engine, by id.
    var traceObservers: [Int: (String) -> Void] = [:]
    var nextTraceID = 0

    func registries(forTable table: String) -> [TypeRegistry] {
        registriesByTable[table.sqlFolded] ?? []
    }

    /// Per child type, the `@Children` arrays of this handle's models that find their children by a plain
    /// column (not a reference): the parent's registry, the array, and the child's property holding the
    /// parent's key. A deleted child finds its parent's loaded array through them.
    var childrenByPlainColumn: [ObjectIdentifier: [(parents: TypeRegistry, array: AnyHeldObjects, property: Int)]] = [:]

    /// Per join table (lowercased), the `@Siblings` arrays of this handle's models that read through it:
    /// the owners' registry and the array. A write to the join table that is not an `add` or `remove` of the
    /// array itself (raw SQL, the other side's `add`) drops them.
    var arraysByJoinTable: [String: [(owners: TypeRegistry, array: AnyHeldObjects)]] = [:]

    /// The child types (registries) whose rows named another parent, or came or went, in the open
    /// transaction: a rollback drops every loaded `@Children` array over them, since the rows it puts back
    /// may have no live instance left to find the arrays by.
    var childTypesWrittenInTransaction: Set<ObjectIdentifier> = []

    /// The join tables of ``arraysByJoinTable`` that are WITHOUT ROWID (the update hook is silent for them),
    /// as of schema version `version`; nil when not yet looked up.
    var joinTablesWithoutRowID: (version: Int64, names: [String])?

    func add(_ registry: TypeRegistry, for type: ObjectIdentifier) {
        registries[type] = registry
        for entry in childrenByPlainColumn[type] ?? [] { registry.parentKeyColumns.insert(entry.property) }
        noteArrays(of: registry)
        let name = registry.metadata.tableName.sqlFolded
        registriesByTable[name, default: []].append(registry)
        if let sharing = registriesByTable[name], sharing.count > 1 {
            for other in sharing { other.sharesTable = true }
        }
        // A model over a join table: its own writes must reach the `@Siblings` arrays over it.
        if arraysByJoinTable[name] != nil { registry.sharesTable = true }
        if !registry.table.hasRowID { withoutRowIDRegistries += 1 }
    }

    private func noteArrays(of registry: TypeRegistry) {
        let arrays = registry.metadata.heldArrays
        guard !arrays.isEmpty else { return }
        let template = registry.metadata.makeInstance()   // the wrappers' declarations (their `by:`, `through:`)
        for array in arrays {
            if let join = array.throughTable(of: template) {
                arraysByJoinTable[join.sqlFolded, default: []].append((registry, array))
                joinTablesWithoutRowID = nil
                for mapping in registriesByTable[join.sqlFolded] ?? [] { mapping.sharesTable = true }
                continue
            }
            guard let child = array.relatedType, let name = array.byProperty(of: template),
                  let metadata = try? ModelMetadata.of(child),
                  let index = metadata.properties.firstIndex(where: { $0.name == name }),
                  metadata.properties[index].related == nil else { continue }
            childrenByPlainColumn[ObjectIdentifier(child), default: []].append((registry, array, index))
            registries[ObjectIdentifier(child)]?.parentKeyColumns.insert(index)
        }
    }

    /// Records a change for observers (only while anyone observes). `own`: the library's own save, whose
    /// changed properties ``recordProperties(_:table:rowID:)`` reports.
    func record(table: String, operation: RowOperation, rowID: Int64, own: Bool = false) {
        guard !observers.isEmpty else { return }
        let key = table.sqlFolded
        var change = transactionChanges[key] ?? newChange(table)
        switch operation {
        case .insert: change.insertedRowIDs.insert(rowID)
        case .delete:
            change.deletedRowIDs.insert(rowID)
            change.insertedRowIDs.remove(rowID)
            change.updatedRowIDs.remove(rowID)
            change.updatedProperties[rowID] = nil
        case .update:
            if !change.insertedRowIDs.contains(rowID) { change.updatedRowIDs.insert(rowID) }
            if !own {
                // Raw SQL, a trigger or a cascade: which columns it changed is not known.
                change.unknownProperties.insert(rowID)
                change.updatedProperties[rowID] = nil
            }
        }
        transactionChanges[key] = change
    }

    /// Records the properties a save of the library updated in one row (only while anyone observes).
    func recordProperties(_ names: [String], table: String, rowID: Int64) {
        guard !observers.isEmpty else { return }
        let key = table.sqlFolded
        var change = transactionChanges[key] ?? newChange(table)
        guard !change.unknownProperties.contains(rowID) else { return }
        change.updatedProperties[rowID, default: []].formUnion(names)
        transactionChanges[key] = change
    }

    /// Records that `table` changed, rows unknown (a WITHOUT ROWID table: the update hook reports none).
    func recordTable(_ table: String) {
        let key = table.sqlFolded
        var change = transactionChanges[key] ?? newChange(table)
        change.listsEveryRow = false
        change.updatedProperties.removeAll()
        transactionChanges[key] = change
    }

    func newChange(_ table: String) -> DatabaseChange {
        let registry = registries(forTable: table).first
        return DatabaseChange(table: registry?.metadata.tableName ?? table, modelType: registry?.metadata.type)
    }

    func noteDeleted(_ object: ModelObject) {
        deletedInTransaction[ObjectIdentifier(object)] = object
        deletionOrder.append(ObjectIdentifier(object))
    }
}

/// The rows of one table that a committed transaction (or a single statement outside one) inserted,
/// updated or deleted, as FCModel's change notifications report them. Row IDs are the primary keys
/// of tables with an INTEGER PRIMARY KEY. Which deletions SQLite does not report (rows REPLACE removes)
/// ``deletedRowIDs`` says.
///
/// ```swift
/// let observation = db.observeChanges { changes in
///     for change in changes where change.modelType == Employee.self {
///         print("employees inserted:", change.insertedRowIDs)
///     }
/// }
/// ```
public struct DatabaseChange: Sendable {
    /// The table.
    ///
    /// ```swift
    /// change.table  // "Employee"
    /// ```
    public let table: String
    /// The model type mapped onto the table through this handle, if any.
    ///
    /// ```swift
    /// change.modelType
    /// ```
    public let modelType: (any Model.Type)?
    /// Rows inserted.
    ///
    /// ```swift
    /// change.insertedRowIDs  // [4, 5]
    /// ```
    public var insertedRowIDs: Set<Int64> = []
    /// Rows updated (not counting rows also inserted in the same transaction).
    ///
    /// ```swift
    /// change.updatedRowIDs
    /// ```
    public var updatedRowIDs: Set<Int64> = []
    /// Rows deleted: those SQLite's update hook reported (DELETE statements, `DELETE FROM t` without
    /// WHERE, whose truncate optimization Strata turns off so that each row is reported, and the rows foreign
    /// keys' ON DELETE CASCADE removes), and those Strata found gone after the statement because a live
    /// instance stood for them.
    ///
    /// SQLite reports no deletion for a row that REPLACE conflict resolution removes (`INSERT OR REPLACE`,
    /// `UPDATE OR REPLACE`, `ON CONFLICT REPLACE` through a UNIQUE index or the primary key), even with
    /// `PRAGMA recursive_triggers` on (which fires DELETE triggers, not the hook): such a row is listed only
    /// when the handle (a pool's writer) held a live instance of it at the time; otherwise the change lists
    /// the statement's insert or update alone. A WITHOUT ROWID table reports no row IDs at all, and a table
    /// dropped, renamed or rebuilt is reported with empty sets.
    ///
    /// ```swift
    /// try db.execute("INSERT OR REPLACE INTO user(email) VALUES ('ada@x')")  // replaces row 1
    /// change.deletedRowIDs  // [1] if an instance of row 1 was alive, else []
    /// ```
    public var deletedRowIDs: Set<Int64> = []
    /// The properties a save changed, for updated rows whose every change came from the library's own
    /// saves; a row changed by raw SQL, a trigger or a cascade has no entry (which columns it changed is
    /// not known).
    ///
    /// ```swift
    /// change.updatedProperties[4]  // ["salary"]
    /// ```
    public var updatedProperties: [Int64: Set<String>] = [:]
    /// Updated rows some write of unknown columns touched.
    var unknownProperties: Set<Int64> = []
    /// Rows named by a key that is not an integer (another engine's text or UUID keys): inserted, updated,
    /// deleted. ``insertedRows`` and its siblings list them beside the integer ones.
    package var insertedKeys: Set<SQLValue> = []
    package var updatedKeys: Set<SQLValue> = []
    package var deletedKeys: Set<SQLValue> = []
    /// Whether the sets list every row the commit changed in the table. False when rows changed that no
    /// one named: a WITHOUT ROWID table on SQLite, a table dropped or altered, and on PostgreSQL rows that raw
    /// SQL, a cascade or a trigger changed, or a composite key. An observer that keeps rows by key reloads
    /// the table then.
    ///
    /// ```swift
    /// for change in changes where !change.listsEveryRow {
    ///     reloadAll(change.table)     // rows changed that the sets do not name
    /// }
    /// ```
    public package(set) var listsEveryRow = true

    package init(table: String, modelType: (any Model.Type)?) {
        self.table = table
        self.modelType = modelType
    }
}

/// A registration made by ``Database/observeChanges(_:)``; it ends on `cancel()` or release.
///
/// ```swift
/// let observation = db.observeChanges { print($0) }
/// observation.cancel()
/// ```
public final class ChangeObservation {
    private weak var context: ModelContext?
    private let id: Int

    init(context: ModelContext, id: Int) {
        self.context = context
        self.id = id
    }

    deinit { cancel() }

    /// Stops observing.
    ///
    /// ```swift
    /// observation.cancel()
    /// ```
    public func cancel() {
        context?.observers[id] = nil
        context = nil
    }
}

/// An instance inserted in the open transaction (``ModelContext/insertedInTransaction``): what a rollback
/// needs to make it unsaved again. 24 bytes (a bulk insert appends one a row, and the list's growth copies
/// them): the depth in 32 bits, the rare adopted key boxed.
struct InsertedInstance {
    let object: ModelObject
    private var storedDepth: Int32
    /// Whether SQLite (or the library) assigned its integer key: a rollback sets it back to 0.
    let keyWasAssigned: Bool
    private let adopted: AdoptedKey?

    init(object: ModelObject, depth: Int, keyWasAssigned: Bool, adoptedFromKey: SQLValue? = nil) {
        self.object = object
        self.storedDepth = Int32(clamping: depth)
        self.keyWasAssigned = keyWasAssigned
        self.adopted = adoptedFromKey.map(AdoptedKey.init)
    }

    /// The savepoint depth it was inserted at.
    var depth: Int {
        get { Int(storedDepth) }
        set { storedDepth = Int32(clamping: newValue) }
    }
    /// For an instance that adopted an existing row by its upsert keys (it took the row's key, and its
    /// UPDATE wrote its values): the key it had before, which a rollback gives back.
    var adoptedFromKey: SQLValue? { adopted?.key }
}

/// ``InsertedInstance/adoptedFromKey``, boxed.
final class AdoptedKey {
    let key: SQLValue
    init(_ key: SQLValue) { self.key = key }
}
