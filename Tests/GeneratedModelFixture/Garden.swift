// The fixture's hand-written class: Garden's Codegen setting is Category/Extension, so the plugin
// generates only its properties and the class is ours, which is where hooks are overridden.
import Foundation
import ObjectGraph

/// A garden: a plan with gardeners and chores; stamped with its creation date when inserted.
open class Garden: Plan {
    override open class var entityName: String { "Garden" }

    override open func awakeFromInsert() {
        super.awakeFromInsert()
        created = Date()
        uuid = UUID()
    }
}
