// strata-benchmarks: Strata beside raw SQLite and GRDB, in one run (issue 4).
//
//   cd Benchmarks && swift run -c release strata-benchmarks [--rounds N] [--quick] [--json PATH]
//       [--only W,...] [--contenders C,...] [--callgrind] [--scale]   (--help for all)
//
// Every workload runs every contender once per round, interleaved (fetch: A B C ..., insert: A B C ...,
// then the next round); the first round is a discarded warm-up. Each run gets a copy of the workload's
// database in a fresh temporary folder, opens it itself, times only its part with ContinuousClock, and
// verifies its result (every object, every value, and the database read back) outside the timed part.
// A wrong answer aborts the run.
import Foundation

#if STRATA_MODELS
let strataModels = true
#else
let strataModels = false
#endif

func strataCase(_ run: @escaping (Job) throws -> Duration) -> [Case] {
    #if STRATA_MODELS
    return [Case(contender: .strata, run: run)]
    #else
    return []
    #endif
}

func makeWorkloads(_ options: Options) -> [Workload] {
    #if STRATA_MODELS
    let strataFetch = StrataContender.fetch, strataInsert = StrataContender.insert
    let strataUpdate = StrataContender.update
    let strataInSync = StrataContender.schemaInSync, strataAddColumn = StrataContender.schemaAddColumn
    let makeSchemaDatabase = StrataContender.makeSchemaDatabase
    let strataLazy = StrataContender.relationshipsLazy, strataPrefetch = StrataContender.relationshipsPrefetch
    let strataChildren = StrataContender.relationshipsChildren
    let strataForKeys = ForKeys.strata
    let strataRelease = ReleaseWorkload.strata
    let strataHeldReferences = HeldReferences.strata
    let strataKeyShape = KeyShapeStrata.fetch
    let strataManyModels = ManyModelTables.strata, makeManyModelDatabase = ManyModelTables.createWithStrata
    #else
    let strataManyModels: (Job) throws -> Duration = { _ in fatalError("Strata contender is disabled") }
    let makeManyModelDatabase = ManyModelTables.createFromSQL
    let strataKeyShape: (KeyShape) -> (Job) throws -> Duration = { _ in { _ in fatalError("Strata contender is disabled") } }
    let strataHeldReferences: (Job) throws -> Duration = { _ in fatalError("Strata contender is disabled") }
    let strataRelease: (Job) throws -> Duration = { _ in fatalError("Strata contender is disabled") }
    let strataForKeys: (Job) throws -> Duration = { _ in fatalError("Strata contender is disabled") }
    let unavailable: (Job) throws -> Duration = { _ in fatalError("Strata contender is disabled") }
    let strataFetch = unavailable, strataInsert = unavailable, strataUpdate = unavailable
    let strataInSync = unavailable, strataAddColumn = unavailable
    let makeSchemaDatabase = SchemaDatabase.createFromSQL
    let strataLazy: (Job, RelationshipStatements) throws -> Duration = { _, _ in fatalError("Strata contender is disabled") }
    let strataPrefetch = strataLazy, strataChildren = strataLazy
    #endif
    let relationshipStatements = RelationshipStatements()

    let all: [Workload] = [
        Workload(
            key: "fetch", title: "fetch: \(options.fetchRows.formatted()) rows -> objects in an array, their release included",
            rows: options.fetchRows,
            makeTemplate: { try ItemTable.create(at: $0, rows: options.fetchRows) },
            cases: [
                Case(contender: .raw, run: RawContender.fetch),
                Case(contender: .rawClasses, run: RawClassesContender.fetch),
                Case(contender: .grdbRecord, run: GRDBContenders.fetchRecord),
                Case(contender: .grdbCodable, run: GRDBContenders.fetchCodable),
                Case(contender: .grdbOptimized, run: GRDBContenders.fetchOptimized),
            ] + strataCase(strataFetch)),
        Workload(
            key: "insert", title: "insert: \(options.insertRows.formatted()) new objects, one transaction, open to commit",
            rows: options.insertRows,
            makeTemplate: { try ItemTable.create(at: $0, rows: 0) },
            cases: [
                Case(contender: .raw, run: RawContender.insert),
                Case(contender: .rawClasses, run: RawClassesContender.insert),
                Case(contender: .grdbRecord, run: GRDBContenders.insertRecord),
                Case(contender: .grdbCodable, run: GRDBContenders.insertCodable),
                Case(contender: .grdbOptimized, run: GRDBContenders.insertOptimized),
            ] + strataCase(strataInsert)),
        Workload(
            key: "update", title: "update: change i5 on \(options.updateRows.formatted()) fetched objects, save all in one transaction",
            rows: options.updateRows,
            makeTemplate: { try ItemTable.create(at: $0, rows: options.updateRows) },
            cases: [
                Case(contender: .raw, run: RawContender.update),
                Case(contender: .rawClasses, run: RawClassesContender.update),
                Case(contender: .grdbRecord, run: GRDBContenders.updateRecord),
                Case(contender: .grdbCodable, run: GRDBContenders.updateCodable),
                Case(contender: .grdbOptimized, run: GRDBContenders.updateOptimized),
            ] + strataCase(strataUpdate)),
        Workload(
            key: "release", title: "release: letting go of \(options.fetchRows.formatted()) fetched objects (plain class instances for raw)",
            rows: options.fetchRows,
            makeTemplate: { try ItemTable.create(at: $0, rows: options.fetchRows) },
            cases: [Case(contender: .raw, run: ReleaseWorkload.raw),
                    Case(contender: .grdbRecord, run: GRDBContenders.releaseRecord)] + strataCase(strataRelease),
            notes: { MemoryFigures.shared.releaseNotes }),
    ] + KeyShape.allCases.map { shape in
        Workload(
            key: shape.rawValue,
            title: "\(shape.rawValue): \(options.fetchRows.formatted()) rows, \(shape.title) -> objects, release included",
            rows: options.fetchRows,
            makeTemplate: { try shape.create(at: $0, rows: options.fetchRows) },
            cases: [Case(contender: .raw, run: KeyShapeRaw.fetch(shape))] + strataCase(strataKeyShape(shape)))
    } + [
        Workload(
            key: "held-references",
            title: "held references: 50,000 objects of 10 Int64 + one reference, fetched and each reference read (100 targets)",
            rows: 50_000,
            makeTemplate: { try HeldReferenceTables.create(at: $0, rows: 50_000) },
            cases: [Case(contender: .raw, run: HeldReferences.raw)] + strataCase(strataHeldReferences),
            notes: { HeldReferenceTables.memoryNotes }),
        Workload(
            key: "for-keys", title: "for-keys: 10,000 objects by key, in the keys' (shuffled) order, of 50,000 rows",
            rows: 10_000,
            makeTemplate: { try ItemTable.create(at: $0, rows: ForKeys.tableRows) },
            cases: [Case(contender: .raw, run: ForKeys.raw)] + strataCase(strataForKeys)),
        Workload(
            key: "first-use", title: "first use: \(SchemaTables.count) models already in sync (fresh handle)",
            rows: SchemaTables.count,
            makeTemplate: { try makeSchemaDatabase($0, true) },
            cases: [Case(contender: .raw, run: RawContender.schemaInSync)] + strataCase(strataInSync)),
        Workload(
            key: "first-use-models",
            title: "first use: \(ManyModelTables.count.formatted()) models (one generic class, a type per table) already in sync (fresh handle)",
            rows: ManyModelTables.count,
            makeTemplate: { try makeManyModelDatabase($0) },
            cases: [Case(contender: .raw, run: ManyModelTables.raw)] + strataCase(strataManyModels)),
        Workload(
            key: "cold-first-use",
            title: "cold first use: \(SchemaTables.count) models already in sync, each run in a new process",
            rows: SchemaTables.count,
            makeTemplate: { try makeSchemaDatabase($0, true) },
            cases: [Case(contender: .raw, run: ColdFirstUse.run(.raw))] + strataCase(ColdFirstUse.run(.strata))),
        Workload(
            key: "schema-add-column", title: "schema sync: first use of \(SchemaTables.count) models needing one new column each",
            rows: SchemaTables.count,
            makeTemplate: { try makeSchemaDatabase($0, false) },
            cases: [Case(contender: .raw, run: RawContender.schemaAddColumn)] + strataCase(strataAddColumn)),
        Workload(
            key: "relationships",
            title: "relationships: \(options.relationshipOwners.formatted()) employees with their department's name "
                + "(\(RelationshipTables.departments.formatted()) departments)",
            rows: options.relationshipOwners,
            makeTemplate: { try RelationshipTables.create(at: $0, employees: options.relationshipOwners) },
            cases: [
                Case(contender: .raw, run: RelationshipTables.rawJoin, name: "raw C JOIN"),
                Case(contender: .grdbOptimized, run: RelationshipTables.grdbJoin, name: "GRDB JOIN"),
            ] + (strataModels ? [
                Case(contender: .strataPrefetch, run: { try strataPrefetch($0, relationshipStatements) }),
                Case(contender: .strataLazy, run: { try strataLazy($0, relationshipStatements) }),
                Case(contender: .strataChildren, run: { try strataChildren($0, relationshipStatements) }),
            ] : []),
            notes: { relationshipStatements.notes }),
    ]
    return all.compactMap { workload in
        if let only = options.onlyWorkloads, !only.contains(workload.key) { return nil }
        var workload = workload
        if let only = options.onlyContenders {
            workload.cases.removeAll { !$0.contender.isSelected(by: only) }
        }
        return workload.cases.isEmpty ? nil : workload
    }
}

/// Runs async work from this top-level synchronous code and waits for it.
func runAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task.detached {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    guard let result else { throw Verification.failure("the async run ended without a result") }
    return try result.get()
}

BenchmarkCommand.main()
