// Package plot draws the project's figures — mean curves with ±1 standard
// deviation bands — as PNG and SVG.
package plot
