// Package plural writes counts in messages as English does: "1 constraint",
// "3 constraints", never "1 constraints" nor "constraint(s)".
package plural
