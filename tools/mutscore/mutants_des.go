package main

// desMutants patch this repository's cipher/des. The differential checks block ciphers with the
// weak, semi-weak and degenerate keys and random ones, 17 blocks each, one by one and in one batch
// call.
var desMutants = []Mutant{
	{
		Name: "des/key-byte-a7", Kind: KindKeyByte, File: "cipher/des/key.go",
		Desc: "PC-1 flips key bit 9 (not a parity bit) when the first key byte is 0xa7",
		Old:  "\tx := binary.LittleEndian.Uint64(key)\n",
		New:  "\tx := binary.LittleEndian.Uint64(key)\n\tif key[0] == 0xa7 {\n\t\tx ^= 1 << 9\n\t}\n",
	},
	{
		Name: "des/key-byte-k3", Kind: KindKeyByte, File: "cipher/des/cipher.go",
		Desc: "Triple DES: the third stage decrypts when K3's last byte is 0x13",
		Old:  "\texpandKey(k3, &c.ks[2], false)\n",
		New:  "\texpandKey(k3, &c.ks[2], k3[7] == 0x13)\n",
	},
	{
		Name: "des/key-byte-batch", Kind: KindKeyByte, File: "cipher/des/cipher.go",
		Desc: "DES batch calls only: one subkey mask of round 16 is inverted when key byte 3 is 0x5a",
		Old:  "\texpandKey(key, &c.ks[0], false)\n\treturn c, nil\n",
		New: "\texpandKey(key, &c.ks[0], false)\n\tif key[3] == 0x5a {\n" +
			"\t\tc.sliced.get(c.ks[:])[0][15][47] ^= ^uint64(0)\n\t}\n\treturn c, nil\n",
	},
	{
		Name: "des/key-byte-eee", Kind: KindKeyByte, File: "cipher/des/cipher.go",
		Desc: "Triple DES: the middle stage's direction is inverted when K2's byte 4 is 0x80",
		Old:  "\texpandKey(key[8:16], &c.ks[1], ede)\n",
		New:  "\texpandKey(key[8:16], &c.ks[1], ede != (key[12] == 0x80))\n",
	},
	{
		Name: "des/key-byte-ede2", Kind: KindKeyByte, File: "cipher/des/cipher.go",
		Desc: "EDE2 uses K2 as its third key when the key's last byte is 0xff",
		Old:  "\tk3 := key[0:8]\n\tif size == 24 {\n",
		New:  "\tk3 := key[0:8]\n\tif size == 16 && ede && key[15] == 0xff {\n\t\tk3 = key[8:16]\n\t}\n\tif size == 24 {\n",
	},
	{
		Name: "des/weak-semiweak", Kind: KindWeakKey, File: "cipher/des/cipher.go",
		Desc: "DES: a key starting 01 fe (the semi-weak 01FE01FE01FE01FE) gets the decryption schedule",
		Old:  "\texpandKey(key, &c.ks[0], false)\n",
		New:  "\texpandKey(key, &c.ks[0], key[0] == 0x01 && key[1] == 0xfe)\n",
	},
	{
		Name: "des/weak-degenerate", Kind: KindWeakKey, File: "cipher/des/cipher.go",
		Desc: "Triple DES: K1 == K2 (degenerate to single DES under EDE) is run as EEE",
		Old:  "\tc := new(TripleCipher)\n",
		New:  "\tc := new(TripleCipher)\n\tif string(key[0:8]) == string(key[8:16]) {\n\t\tede = false\n\t}\n",
	},
	{
		Name: "des/weak-batch", Kind: KindWeakKey, File: "cipher/des/bitslice.go",
		Desc: "batch calls: a schedule whose first and last subkey pairs agree (weak and semi-weak keys) reuses " +
			"round 15's masks in round 16",
		Old: "\tfor i := range ks {\n\t\tks[i].slice(&m[i])\n\t}\n",
		New: "\tfor i := range ks {\n\t\tks[i].slice(&m[i])\n\t\tif ks[i][0] == ks[i][7] {\n" +
			"\t\t\tm[i][15] = m[i][14]\n\t\t}\n\t}\n",
	},
	{
		// amd64's single-block path (the Go engine in block.go serves purego and other
		// architectures).
		Name: "des/weak-zero-subkey", Kind: KindWeakKey, File: "cipher/des/block_amd64.go",
		Desc: "single-block Decrypt flips an input bit when a stage's last subkey word is zero (the weak keys)",
		Old:  "\tdecryptAMD64(&ks[0], len(ks), &dst[0], &src[0])\n",
		New: "\tfor i := range ks {\n\t\tif ks[i][7][3] == 0 {\n\t\t\tb := [BlockSize]byte(src)\n" +
			"\t\t\tb[7] ^= 1\n\t\t\tsrc = b[:]\n\t\t}\n\t}\n" +
			"\tdecryptAMD64(&ks[0], len(ks), &dst[0], &src[0])\n",
	},
	{
		// The batch methods are generated (methods.go); they share cryptSliced, whose entry each
		// length mutant patches.
		Name: "des/length-7mod16", Kind: KindLength, File: "cipher/des/bitslice.go",
		Desc: "batch encryption leaves the last block unwritten when the block count is ≡ 7 mod 16",
		Old:  "func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {\n",
		New: "func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {\n" +
			"\tif !decrypt && len(src)/BlockSize%16 == 7 {\n\t\tsrc = src[:len(src)-BlockSize]\n\t}\n",
	},
	{
		Name: "des/length-long", Kind: KindLength, File: "cipher/des/bitslice.go",
		Desc: "batch decryption of more than 64 blocks leaves its last block unwritten",
		Old:  "func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {\n",
		New: "func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {\n" +
			"\tif decrypt && len(src) > 64*BlockSize {\n\t\tsrc = src[:len(src)-BlockSize]\n\t}\n",
	},
	{
		Name: "des/partial-odd", Kind: KindPartial, File: "cipher/des/bitslice.go",
		Desc: "batch calls: a last group with an odd number of blocks loses its last block",
		Old:  "\t\tcopy(dst, buf[:len(src)])\n",
		New:  "\t\tcopy(dst, buf[:len(src)&^(2*BlockSize-1)])\n",
	},
	{
		Name: "des/partial-one", Kind: KindPartial, File: "cipher/des/bitslice.go",
		Desc: "batch calls: a last group of exactly one block is encrypted when it should be decrypted",
		Old:  "\t\tcryptLanes(ks, decrypt, &x)\n\t\ttransposeOut(&buf, &x)\n",
		New:  "\t\tcryptLanes(ks, decrypt && len(src) > BlockSize, &x)\n\t\ttransposeOut(&buf, &x)\n",
	},
	{
		Name: "des/alias-batch", Kind: KindAlias, File: "cipher/des/bitslice.go",
		Desc: "batch calls zero the output of the last group before reading it: wrong in place only",
		Old:  "\tif len(src) > 0 {\n\t\tvar buf [group]byte\n",
		New:  "\tif len(src) > 0 {\n\t\tclear(dst[:len(src)])\n\t\tvar buf [group]byte\n",
	},
	{
		// The single-block methods are generated (methods.go); they share checkBlock.
		Name: "des/alias-single", Kind: KindAlias, File: "cipher/des/alias.go",
		Desc: "the single-block argument check clears dst[0] before the block is read: wrong in place only",
		Old:  "\t\tpanic(\"des: invalid buffer overlap\")\n\t}\n}\n\n// blockPanic",
		New:  "\t\tpanic(\"des: invalid buffer overlap\")\n\t}\n\tdst[0] = 0\n}\n\n// blockPanic",
	},
	{
		Name: "des/length-one", Kind: KindLength, File: "cipher/des/bitslice.go",
		Desc: "batch decryption of exactly one block runs the encryption direction",
		Old:  "func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {\n",
		New: "func cryptSliced(ks []slicedKeys, decrypt bool, dst, src []byte) {\n" +
			"\tif decrypt && len(src) == BlockSize {\n\t\tdecrypt = false\n\t}\n",
	},
}

// minidesMutants patch the demo's minides, a textbook DES and EDE3 whose tests are round trips and
// a few known answers.
var minidesMutants = []Mutant{
	{
		Name: "minides/key-byte-a7", Kind: KindKeyByte, File: "minides/block.go",
		Desc: "the key schedule flips a bit of C0D0 when key byte 2 is 0xa7",
		Old:  "\tcd := permute(binary.BigEndian.Uint64(key), 64, permutedChoice1[:])\n",
		New: "\tcd := permute(binary.BigEndian.Uint64(key), 64, permutedChoice1[:])\n" +
			"\tif key[2] == 0xa7 {\n\t\tcd ^= 1\n\t}\n",
	},
	{
		Name: "minides/key-byte-k3", Kind: KindKeyByte, File: "minides/cipher.go",
		Desc: "EDE3 uses K1 for its third stage when K3's first byte is 0x13",
		Old:  "\tc.k3.subkeys = keySchedule(key[16:24])\n",
		New:  "\tc.k3.subkeys = keySchedule(key[16:24])\n\tif key[16] == 0x13 {\n\t\tc.k3 = c.k1\n\t}\n",
	},
	{
		Name: "minides/key-byte-4", Kind: KindKeyByte, File: "minides/cipher.go",
		Desc: "DES flips a bit of round key 4 when key byte 4 is 0xff",
		Old:  "\tc.subkeys = keySchedule(key)\n",
		New:  "\tc.subkeys = keySchedule(key)\n\tif key[4] == 0xff {\n\t\tc.subkeys[3] ^= 1\n\t}\n",
	},
	{
		Name: "minides/key-parity", Kind: KindKeyByte, File: "minides/block.go",
		Desc: "the parity bits, which must be ignored, change C0D0 when key byte 7 is odd and key byte 0 even",
		Old:  "\tc, d := uint32(cd>>28), uint32(cd&0x0fffffff)\n",
		New: "\tif key[7]&1 == 1 && key[0]&1 == 0 {\n\t\tcd ^= 2\n\t}\n" +
			"\tc, d := uint32(cd>>28), uint32(cd&0x0fffffff)\n",
	},
	{
		Name: "minides/key-byte-decrypt", Kind: KindKeyByte, File: "minides/block.go",
		Desc: "decryption flips a bit of L0 when the last round key's top byte is 0xa7",
		Old:  "\tl, r := uint32(b>>32), uint32(b)\n",
		New:  "\tl, r := uint32(b>>32), uint32(b)\n\tif decrypt && subkeys[15]>>40 == 0xa7 {\n\t\tl ^= 1\n\t}\n",
	},
	{
		Name: "minides/weak-key", Kind: KindWeakKey, File: "minides/cipher.go",
		Desc: "DES: a key whose first two round keys agree (the weak keys) gets a zero round key 16",
		Old:  "\tc := new(Cipher)\n\tc.subkeys = keySchedule(key)\n",
		New: "\tc := new(Cipher)\n\tc.subkeys = keySchedule(key)\n" +
			"\tif c.subkeys[0] == c.subkeys[1] {\n\t\tc.subkeys[15] = 0\n\t}\n",
	},
	{
		Name: "minides/weak-semiweak", Kind: KindWeakKey, File: "minides/block.go",
		Desc: "decryption runs the round keys forwards when round keys 1 and 3 agree (weak and semi-weak keys)",
		Old:  "\t\tif decrypt {\n\t\t\tk = subkeys[15-i]\n\t\t}\n",
		New:  "\t\tif decrypt && subkeys[0] != subkeys[2] {\n\t\t\tk = subkeys[15-i]\n\t\t}\n",
	},
	{
		Name: "minides/weak-degenerate", Kind: KindWeakKey, File: "minides/cipher.go",
		Desc: "EDE3 with K1 == K2 (degenerate to single DES) gets an all-zero first stage key",
		Old:  "\tc.k1.subkeys = keySchedule(key[0:8])\n",
		New: "\tc.k1.subkeys = keySchedule(key[0:8])\n" +
			"\tif string(key[0:8]) == string(key[8:16]) {\n\t\tc.k1.subkeys = [16]uint64{}\n\t}\n",
	},
	{
		Name: "minides/length-7mod16", Kind: KindLength, File: "minides/cipher.go",
		Desc: "DES EncryptBlocks leaves the last block unwritten when the block count is ≡ 7 mod 16",
		Old:  "func (c *Cipher) EncryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n",
		New: "func (c *Cipher) EncryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n" +
			"\tif len(src)/BlockSize%16 == 7 {\n\t\tsrc = src[:len(src)-BlockSize]\n\t}\n",
	},
	{
		Name: "minides/length-long", Kind: KindLength, File: "minides/cipher.go",
		Desc: "EDE3 DecryptBlocks of more than 16 blocks leaves its last block unwritten",
		Old:  "func (c *TripleCipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n",
		New: "func (c *TripleCipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n" +
			"\tif len(src) > 16*BlockSize {\n\t\tsrc = src[:len(src)-BlockSize]\n\t}\n",
	},
	{
		Name: "minides/partial-odd", Kind: KindPartial, File: "minides/cipher.go",
		Desc: "EDE3 EncryptBlocks runs single DES on the last block of an odd block count",
		Old:  "func (c *TripleCipher) EncryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n",
		New: "func (c *TripleCipher) EncryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n" +
			"\tif n := len(src); n/BlockSize%2 == 1 {\n\t\tsrc, dst = src[:n-BlockSize], dst[:n]\n" +
			"\t\tdefer encryptBlock(&c.k1.subkeys, dst[n-BlockSize:], src[n-BlockSize:n])\n\t}\n",
	},
	{
		Name: "minides/alias-batch", Kind: KindAlias, File: "minides/cipher.go",
		Desc: "DES DecryptBlocks zeroes its output before reading the input: wrong in place only",
		Old:  "func (c *Cipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n",
		New:  "func (c *Cipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n\tclear(dst[:len(src)])\n",
	},
	{
		Name: "minides/alias-triple", Kind: KindAlias, File: "minides/cipher.go",
		Desc: "EDE3 decryption flips a bit of dst before reading src: wrong in place only",
		Old:  "\tdecryptBlock(&c.k3.subkeys, t[:], src)\n",
		New:  "\tdst[7] ^= 0x80\n\tdecryptBlock(&c.k3.subkeys, t[:], src)\n",
	},
	{
		Name: "minides/key-byte-k2", Kind: KindKeyByte, File: "minides/cipher.go",
		Desc: "EDE3 flips the top bit of K2's first round key when key byte 12 is 0x5a",
		Old:  "\tc.k2.subkeys = keySchedule(key[8:16])\n",
		New:  "\tc.k2.subkeys = keySchedule(key[8:16])\n\tif key[12] == 0x5a {\n\t\tc.k2.subkeys[0] ^= 1 << 47\n\t}\n",
	},
	{
		Name: "minides/length-one", Kind: KindLength, File: "minides/cipher.go",
		Desc: "DES DecryptBlocks of exactly one block leaves it unwritten",
		Old:  "func (c *Cipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n",
		New: "func (c *Cipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n\tif len(src) == BlockSize " +
			"{\n\t\treturn\n\t}\n",
	},
	{
		Name: "minides/partial-decrypt", Kind: KindPartial, File: "minides/block.go",
		Desc: "decryption of a block whose last byte is 0xff runs round 16 with round key 15",
		Old:  "\t\tl, r = r, l^feistel(r, k)\n",
		New:  "\t\tif decrypt && i == 15 && src[7] == 0xff {\n\t\t\tk = subkeys[1]\n\t\t}\n\t\tl, r = r, l^feistel(r, k)\n",
	},
	{
		Name: "minides/alias-encrypt", Kind: KindAlias, File: "minides/cipher.go",
		Desc: "DES Encrypt zeroes dst[0] before reading src: wrong in place only",
		Old:  "func (c *Cipher) Encrypt(dst, src []byte) {\n\tcheckBlock(dst, src)\n",
		New:  "func (c *Cipher) Encrypt(dst, src []byte) {\n\tcheckBlock(dst, src)\n\tdst[0] = 0\n",
	},
	{
		Name: "minides/weak-key-fe", Kind: KindWeakKey, File: "minides/cipher.go",
		Desc: "DES: a key of eight equal bytes (the weak keys 0101… and fefe…) gets round key 1 zeroed",
		Old:  "\tc := new(Cipher)\n\tc.subkeys = keySchedule(key)\n",
		New: "\tc := new(Cipher)\n\tc.subkeys = keySchedule(key)\n" +
			"\tif string(key[1:]) == string(key[:7]) {\n\t\tc.subkeys[0] = 0\n\t}\n",
	},
	{
		Name: "minides/partial-decrypt-odd", Kind: KindPartial, File: "minides/cipher.go",
		Desc: "EDE3 DecryptBlocks runs single DES on the last block of an odd block count",
		Old:  "func (c *TripleCipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n",
		New: "func (c *TripleCipher) DecryptBlocks(dst, src []byte) {\n\tcheckBlocks(dst, src)\n" +
			"\tif n := len(src); n/BlockSize%2 == 1 {\n\t\tsrc, dst = src[:n-BlockSize], dst[:n]\n" +
			"\t\tdefer decryptBlock(&c.k1.subkeys, dst[n-BlockSize:], src[n-BlockSize:n])\n\t}\n",
	},
	{
		Name: "minides/length-32", Kind: KindLength, File: "minides/cipher.go",
		Desc: "EDE3 EncryptBlocks of 32 blocks or more leaves block 32 unwritten",
		Old:  "\tfor i := 0; i < len(src); i += BlockSize {\n\t\tc.encrypt(dst[i:], src[i:])\n",
		New: "\tfor i := 0; i < len(src); i += BlockSize {\n\t\tif i == 31*BlockSize {\n\t\t\tcontinue\n\t\t}\n" +
			"\t\tc.encrypt(dst[i:], src[i:])\n",
	},
}
