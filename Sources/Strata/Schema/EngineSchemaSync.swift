/// Schema sync over the driver protocols alone: plan each model's table against what an engine's
/// ``SchemaIntrospector`` reads, in the engine's ``SQLDialect``, and hand each step to the caller to run.
/// (`package`: the PostgreSQL module syncs through it; a `Database` on SQLite plans with the same
/// ``SchemaPlanner`` and runs the steps itself, with the SQLite-only rebuild around them.)
///
/// The caller runs the whole sync in one transaction, so a failure anywhere leaves nothing changed.
///
/// ```swift
/// try connection.execute("BEGIN")
/// let plans = try EngineSchemaSync.sync([Album.self, Artist.self], dialect: connection.dialect,
///                                       introspect: { try PostgresIntrospector(connection) },
///                                       run: { try connection.execute($0.sql) })
/// try connection.execute("COMMIT")
/// ```
package enum EngineSchemaSync {
    /// What sync would do for `type` now (a dry run).
    ///
    /// ```swift
    /// let plan = try EngineSchemaSync.plan(Album.self, dialect: dialect, introspector: introspector)
    /// ```
    package static func plan(_ type: any Model.Type, dialect: any SQLDialect,
                             introspector: any SchemaIntrospector) throws -> SchemaPlan {
        try SchemaPlanner(metadata: ModelMetadata.of(type), dialect: dialect).plan(in: introspector)
    }

    /// Syncs the tables of `types`, each model's referenced models first (a foreign key needs its parent
    /// table), reading the schema again before each model: returns the plans, in the order they ran.
    ///
    /// ```swift
    /// let plans = try EngineSchemaSync.sync([Album.self], dialect: dialect, introspect: read, run: execute)
    /// ```
    package static func sync(_ types: [any Model.Type], dialect: any SQLDialect,
                             introspect: () throws -> any SchemaIntrospector,
                             run: (SchemaStep) throws -> Void) throws -> [SchemaPlan] {
        try syncReading(types, dialect: dialect, introspect: introspect, run: run).plans
    }

    /// ``sync(_:dialect:introspect:run:)``, also giving the schema as it stands after the last step. The
    /// schema is read once, and again only after a model's steps changed it: a sync of tables already in
    /// step reads the catalog once.
    ///
    /// ```swift
    /// let (plans, schema) = try EngineSchemaSync.syncReading([Album.self], dialect: dialect, introspect: read, run: execute)
    /// let albums = try schema.table("Album")
    /// ```
    package static func syncReading(_ types: [any Model.Type], dialect: any SQLDialect,
                                    introspect: () throws -> any SchemaIntrospector,
                                    run: (SchemaStep) throws -> Void) throws -> (plans: [SchemaPlan], schema: any SchemaIntrospector) {
        var ordered: [any Model.Type] = []
        func visit(_ type: any Model.Type, _ path: [ObjectIdentifier]) throws {
            let id = ObjectIdentifier(type)
            guard !ordered.contains(where: { ObjectIdentifier($0) == id }), !path.contains(id) else { return }
            for property in try ModelMetadata.of(type).properties {
                if let related = property.related { try visit(related, path + [id]) }
            }
            ordered.append(type)
        }
        for type in types { try visit(type, []) }
        var plans: [SchemaPlan] = []
        var schema: (any SchemaIntrospector)?
        for type in ordered {
            let current = try schema ?? introspect()
            let plan = try plan(type, dialect: dialect, introspector: current)
            for step in plan.steps { try run(step) }
            schema = plan.steps.isEmpty ? current : nil
            plans.append(plan)
        }
        return (plans, try schema ?? introspect())
    }

    /// ``sync(_:dialect:introspect:run:)`` in one transaction on `connection`, or in a savepoint of the
    /// caller's open one: every step runs, or none did and the error says which failed (for engines whose
    /// DDL is transactional, as PostgreSQL's is).
    ///
    /// ```swift
    /// let plans = try EngineSchemaSync.syncAtomically([Album.self], on: connection, introspect: { try PostgresIntrospector(connection) })
    /// ```
    package static func syncAtomically<C: DriverConnection>(_ types: [any Model.Type], on connection: C,
                                                            introspect: () throws -> any SchemaIntrospector) throws -> [SchemaPlan] {
        try syncAtomicallyReading(types, on: connection, introspect: introspect).plans
    }

    /// ``syncAtomically(_:on:introspect:)``, also giving the schema as the sync left it
    /// (``syncReading(_:dialect:introspect:run:)``).
    ///
    /// ```swift
    /// let (_, schema) = try EngineSchemaSync.syncAtomicallyReading([Album.self], on: connection, introspect: read)
    /// ```
    package static func syncAtomicallyReading<C: DriverConnection>(_ types: [any Model.Type], on connection: C,
                                                                   introspect: () throws -> any SchemaIntrospector) throws -> (plans: [SchemaPlan], schema: any SchemaIntrospector) {
        let nested = connection.isInTransaction
        try connection.execute(nested ? "SAVEPOINT strata_sync" : "BEGIN")
        do {
            let result = try syncReading(types, dialect: connection.dialect, introspect: introspect, run: { step in try connection.execute(step.sql) })
            try connection.execute(nested ? "RELEASE SAVEPOINT strata_sync" : "COMMIT")
            return result
        } catch {
            try? connection.execute(nested ? "ROLLBACK TO SAVEPOINT strata_sync; RELEASE SAVEPOINT strata_sync" : "ROLLBACK")
            throw error
        }
    }
}
