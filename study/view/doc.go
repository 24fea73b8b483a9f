// Package view assembles what the dashboard draws of one study (Of): its
// summary, observations and pending asks, and the policy's posterior over
// a small finite decision set or in slices through the best safe point,
// in the user's units for a study stated in parameters. It reads the
// study through study.Reader, under one hold of it, and changes nothing:
// viewing a study never changes its next ask.
//
// Layer 8 (docs/layout.md): it may import study and the packages below it.
package view
