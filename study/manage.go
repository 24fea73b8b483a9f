package study

import (
	"context"
	"fmt"
	"sort"

	"github.com/safegp/safegp/study/api"
)

// DeleteAnswer says what a deletion removed.
type DeleteAnswer struct {
	Deleted string `json:"deleted"`
	Events  int    `json:"events"` // every ask, tell, retraction and fit it had recorded
	// Pending are the asks that were pending (handed out, not told),
	// oldest first; Leased those of them whose lease had not ended.
	Pending []int `json:"pending,omitempty"`
	Leased  []int `json:"leased,omitempty"`
}

// Delete removes a study and everything recorded of it. A study some of
// whose pending asks are leased (their lease has not ended: a worker is
// measuring them) is refused with ErrLeased unless force is set: the
// worker's tell would find no study. An ask pending without a lease does
// not hold a deletion back: nothing says it is being measured.
func (v *Service) Delete(ctx context.Context, name string, force bool) (*DeleteAnswer, error) {
	var ans *DeleteAnswer
	err := v.write(ctx, name, func(s *Study) error {
		ans = &DeleteAnswer{Deleted: name, Events: len(s.events)}
		for _, p := range s.pending {
			ans.Pending = append(ans.Pending, p.ask)
		}
		now := v.now().UnixMilli()
		return v.store.Delete(ctx, name, len(s.events), func(leases map[int]int64) error {
			for _, ask := range ans.Pending {
				if until, ok := leases[ask]; ok && until > now {
					ans.Leased = append(ans.Leased, ask)
				}
			}
			sort.Ints(ans.Leased)
			if len(ans.Leased) > 0 && !force {
				return fmt.Errorf("%w: %d of study %q's asks (%v) are leased to workers measuring them: wait for their tells, or delete with force", api.ErrLeased, len(ans.Leased), name, ans.Leased)
			}
			return nil
		})
	})
	if err == nil {
		v.cache.Forget(name)
	}
	return ans, err
}

// Rename gives a study a new name; its records move with it in one
// transaction. A study of that name already is refused (store.ErrExists).
func (v *Service) Rename(ctx context.Context, old, new string) error {
	if err := api.CheckName(new); err != nil {
		return err
	}
	err := v.write(ctx, old, func(*Study) error { return v.store.Rename(ctx, old, new) })
	if err == nil {
		v.cache.Forget(old)
		v.cache.Forget(new)
	}
	return err
}
