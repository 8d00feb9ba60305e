package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/parog/parog-go/kgqa/config"
)

func runConfig(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "config", "[--config FILE ...] [--set key=value ...]")
	cf := addConfigFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, src := config.Default(), config.Sources{}
	if cf.given() || len(cf.sets) > 0 {
		var err error
		if !cf.given() {
			err = config.Apply(&cfg, cf.sets)
			for _, kv := range cf.sets {
				k, _, _ := strings.Cut(kv, "=")
				src[strings.TrimSpace(k)] = "--set"
			}
		} else {
			cfg, src, err = cf.loadSources(env)
		}
		if err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tENV\tVALUE\tFROM\tDESCRIPTION")
	for _, s := range config.Settings(&cfg) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Key, s.Env, s.Value, src.Of(s.Key), s.Description)
	}
	return tw.Flush()
}
