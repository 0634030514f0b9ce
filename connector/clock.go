package connector

import (
	"context"
	"time"
)

// Clock is where a generating source (datagen, faker) gets the time, and how
// it waits for its rate; tests pass a clock of their own.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the wall clock.
var SystemClock Clock = systemClock{}

type systemClock struct{}

// Now is time.Now.
func (systemClock) Now() time.Time { return time.Now() }

// Sleep waits on a timer.
func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
