extension ModelMetadata {
    /// Checks every relationship declaration of the model (`@Children(by:)` and its `orderBy`, `@Siblings`)
    /// against the related models, so that a mistake is a ``ModelError`` naming the model, the property and
    /// the fix from the first fetch or save of this model (``Database`` `resync`, once per table mapping),
    /// never an array that reads as `[]`. (`@Reference`, `columnNames`, indices and `upsertKeys` are checked
    /// as the metadata is built.)
    func checkRelationships() throws {
        guard !childrenByName.isEmpty else { return }
        let template = makeInstance()   // the wrappers' declarations (their `by:`, `through:`)
        for (name, array) in childrenByName.sorted(by: { $0.key < $1.key }) {
            try array.checkDeclaration(of: template, owner: self, property: name)
        }
    }
}
