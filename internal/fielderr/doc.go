// Package fielderr builds configuration errors that name the offending
// field by its full path, such as "model.objective.lengthscale".
package fielderr
