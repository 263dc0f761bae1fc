package des_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"log"

	"github.com/perfgate/perfgate/cipher/des"
)

// One block under DES: the known answer of FIPS 81's examples ("Now is t" under 0123456789abcdef).
func ExampleNewCipher() {
	key, _ := hex.DecodeString("0123456789abcdef")
	c, err := des.NewCipher(key)
	if err != nil {
		log.Fatal(err)
	}
	dst := make([]byte, des.BlockSize)
	c.Encrypt(dst, []byte("Now is t"))
	fmt.Println(hex.EncodeToString(dst))
	// Output: 3fa40e8a984d4815
}

// Many blocks at once under Triple DES (EDE, three keys): EncryptBlocks runs the constant-time
// bitsliced engine, and gives what Encrypt gives block by block.
func ExampleTripleCipher_EncryptBlocks() {
	key, _ := hex.DecodeString("0123456789abcdef23456789abcdef01456789abcdef0123")
	c, err := des.NewTripleEDE3(key)
	if err != nil {
		log.Fatal(err)
	}
	src := bytes.Repeat([]byte("8 bytes!"), 300)
	batch := make([]byte, len(src))
	c.EncryptBlocks(batch, src)
	one := make([]byte, des.BlockSize)
	c.Encrypt(one, src[:des.BlockSize])
	fmt.Println(len(batch)/des.BlockSize, "blocks; the first as Encrypt gives it:", bytes.Equal(one, batch[:des.BlockSize]))
	// Output: 300 blocks; the first as Encrypt gives it: true
}
