// The `pim` command's entry point; the commands arrive with the CLI step. Loading the model here
// checks, from the first build on, that the embedded model and its generated classes fit.
import PIM

_ = PIMModel.shared
