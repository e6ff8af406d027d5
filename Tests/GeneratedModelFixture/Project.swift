// The fixture's hand-written class: Project's Codegen setting is Category/Extension, so the plugin
// generates only its properties and the class is ours, which is where hooks are overridden.
import Foundation
import ObjectGraph

/// A project: a record with members and todos; stamped with its creation date when inserted.
open class Project: Record {
    override open class var entityName: String { "Project" }

    override open func awakeFromInsert() {
        super.awakeFromInsert()
        created = Date()
        uuid = UUID()
    }
}
