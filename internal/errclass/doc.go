// Package errclass sorts the project's sentinel errors into the classes a
// caller acts on — the input is invalid, it conflicts with the state, the
// thing is not found, the service is unavailable for now, the request is
// too large — so that an interface maps each class to its answer once
// (the HTTP server to its status codes) instead of enumerating every
// sentinel of every package.
package errclass
