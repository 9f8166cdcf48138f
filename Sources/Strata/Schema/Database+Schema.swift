extension Database {
    /// What schema sync would do for `type` now, without changing anything (a dry run).
    /// Throws a ``SchemaError`` when additive sync cannot make the table fit the model.
    ///
    /// ```swift
    /// let plan = try db.schemaPlan(for: Employee.self)
    /// print(plan)   // Employee: ALTER TABLE "Employee" ADD COLUMN "email" TEXT
    /// ```
    public func schemaPlan<T: Model>(for type: T.Type) throws -> SchemaPlan {
        let metadata = try ModelMetadata.of(type)
        return try SchemaPlanner(metadata: metadata).plan(for: TableInfo.read(metadata.tableName, in: connection))
    }

    /// Syncs the table of `type` now and returns the steps applied (empty when it was in sync). Sync
    /// also runs by itself on a type's first use with this handle, so calling this is optional.
    ///
    /// ```swift
    /// let applied = try db.syncSchema(Employee.self)
    /// for step in applied.steps { print(step.sql) }
    /// ```
    @discardableResult
    public func syncSchema<T: Model>(_ type: T.Type) throws -> SchemaPlan {
        let metadata = try ModelMetadata.of(type)
        let (plan, mapping) = try sync(metadata)
        if let registry = models.registries[ObjectIdentifier(type)] {
            registry.table = mapping
        } else {
            models.add(TypeRegistry(metadata: metadata, table: mapping, context: models), for: ObjectIdentifier(type))
        }
        return plan
    }

    /// The registry of a model type: synced on first use with this handle, and again when the schema
    /// changed underneath.
    @inline(__always)
    func registry(for type: any Model.Type) throws -> TypeRegistry {
        if !models.needsResync, let registry = models.registries[ObjectIdentifier(type)] { return registry }
        return try resync(type)
    }

    private func resync(_ type: any Model.Type) throws -> TypeRegistry {
        if models.needsResync {
            models.needsResync = false
            let synced = Array(models.registries.values)
            for registry in synced { registry.table = try sync(registry.metadata).mapping }
        }
        if let registry = models.registries[ObjectIdentifier(type)] { return registry }
        let metadata = try ModelMetadata.of(type)
        let registry = TypeRegistry(metadata: metadata, table: try sync(metadata).mapping, context: models)
        models.add(registry, for: ObjectIdentifier(type))
        return registry
    }

    /// Plans, and when needed applies in one IMMEDIATE transaction (a savepoint inside an open one),
    /// the steps for one model; returns the plan and the mapping onto the resulting table.
    private func sync(_ metadata: ModelMetadata) throws -> (plan: SchemaPlan, mapping: TableMapping) {
        let planner = SchemaPlanner(metadata: metadata)
        var info = try TableInfo.read(metadata.tableName, in: connection)
        var plan = try planner.plan(for: info)
        if !plan.isEmpty {
            try transaction(.immediate) {
                // Plan again under the write lock: another connection may have changed the table meanwhile.
                plan = try planner.plan(for: TableInfo.read(metadata.tableName, in: connection))
                for step in plan.steps {
                    configuration.logger.info("Strata schema sync: \(step.sql)", metadata: ["model": "\(metadata.typeName)"])
                    try connection.execute(step.sql)
                }
            }
            info = try TableInfo.read(metadata.tableName, in: connection)
        }
        guard let info else {
            throw SchemaError(model: metadata.typeName, table: metadata.tableName, column: nil, found: "no table",
                              expected: "the table created by sync", remedy: "Check that the database is writable.")
        }
        models.schemaVersion = try value(Int64.self, "PRAGMA schema_version") ?? -1
        return (plan, TableMapping(metadata: metadata, info: info))
    }
}
