// Command apionly is a program that imports only the Go client of the API,
// for measuring what the client costs a program that embeds it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/parog/parog-go/kgqa/api"
)

func main() {
	c, err := api.NewClient("http://127.0.0.1:8080")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(c.Ask(context.Background(), api.AskRequest{Question: os.Args[1]}))
}
