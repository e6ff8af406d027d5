// Foundation also exports types named `Predicate`, `Expression` and `PredicateError` (the #Predicate macro's);
// in this module the names mean ObjectGraph's.
import ObjectGraph

typealias Predicate = ObjectGraph.Predicate
typealias Expression = ObjectGraph.Expression
typealias PredicateError = ObjectGraph.PredicateError
