package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/parog/parog-go/kgqa/config"
)

func runConfig(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "config", "[--config FILE] [--set key=value ...]")
	cf := addConfigFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := config.Default()
	if cf.path != "" || len(cf.sets) > 0 {
		var err error
		if cf.path == "" {
			err = config.Apply(&cfg, cf.sets)
		} else {
			cfg, err = cf.load(env)
		}
		if err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tENV\tVALUE\tDESCRIPTION")
	for _, s := range config.Settings(&cfg) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Key, s.Env, s.Value, s.Description)
	}
	return tw.Flush()
}
