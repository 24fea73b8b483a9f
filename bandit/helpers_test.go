package bandit_test

import "github.com/safegp/safegp/bandit"

// buildContextual is bandit.Build on a domain with contexts, as the
// contextual policy the tests drive through its own methods.
func buildContextual(s *bandit.Spec, model bandit.Model, d bandit.Domain, opt bandit.Options) (bandit.Contextual, error) {
	p, err := bandit.Build(s, model, d, opt)
	if err != nil {
		return nil, err
	}
	return p.(bandit.Contextual), nil
}
