// Package vectors holds the keys the differential check feeds every constructor, chosen so that a
// bug tied to one key shows on both sides: the special keys of DES and Triple-DES (weak, semi-weak,
// possibly weak, parity flipped, degenerate triples), keys with runs of 0x00 or 0xff bytes, keys
// that give each byte every value, then random keys; and the lengths of the messages of the message
// families and the chunks they are written in. Rand seeds each (seed, constructor, key size) stream
// on its own, so the inputs are the same on both sides and from run to run; Keys lists a block
// cipher's keys, MessageKeys a message family's, MessageLengths and KeyLengths their messages.
//
// The tables hold the DES keys whose key schedule degenerates, each an 8-byte key written with odd
// parity in every byte, the form in which the standards print them. The check also feeds each of
// them with every parity bit flipped, so that a change that starts to depend on the parity bits is
// caught on exactly the keys where it is most likely to show.
//
// The structure behind the three tables: PC-1 splits the 56 key bits into two 28-bit registers C
// and D that rotate 28 positions over the 16 rounds. When C and D are each all zeros or all ones,
// every round key is the same (weak); when each register repeats a 2-bit pattern (00, 11, 01, 10)
// and not both are constant, only two round keys occur (semi-weak); when each repeats a 4-bit
// pattern and not both have period ≤ 2, only four round keys occur (possibly weak). That gives 4,
// 16−4 = 12 and 64−16 = 48 keys; TestWeakKeyStructure derives them again from PC-1 and checks these
// tables against the derivation.
package vectors
