// Delete propagation: when the event ends, each object deleted in it gets prepareForDeletion and
// its relationships' delete rules run: nullify removes it from the inverse side, cascade deletes
// the destinations (through chains and cycles), deny is checked at save, no action does nothing.

extension ManagedObjectContext {
    func propagateDeletion(of object: ManagedObject) {
        object.prepareForDeletion()
        for index in object.layout.relationshipIndexes {
            let relationship = object.layout.properties[index] as! RelationshipDescription
            let destinations = relationship.isToMany ? object.toManyStorage(atSlot: index).objects.elements
                : object.toOneObject(atSlot: index).map { [$0] } ?? []
            switch relationship.deleteRule {
            case .nullify:
                guard let inverse = relationship.inverseRelationship else { continue }
                for destination in destinations where !destination.isDeleted { destination.unlink(object, through: inverse) }
            case .cascade:
                for destination in destinations where !destination.isDeleted { delete(destination) }
            case .deny, .noAction:
                continue
            }
        }
    }
}
