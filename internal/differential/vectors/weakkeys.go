package vectors

// weakKeys are the 4 weak keys: E_k(E_k(x)) = x.
// Source: NIST SP 800-67 Rev. 2, §3.3.2 (Weak keys), and FIPS 74 (1981), §3.6.
var weakKeys = [4]string{
	"0101010101010101",
	"fefefefefefefefe",
	"e0e0e0e0f1f1f1f1",
	"1f1f1f1f0e0e0e0e",
}

// semiWeakKeys are the 12 semi-weak keys in 6 pairs (k1, k2) with E_k1(E_k2(x)) = x; pairs are
// adjacent. Source: NIST SP 800-67 Rev. 2, §3.3.2, and FIPS 74 (1981), §3.6.
var semiWeakKeys = [12]string{
	"01fe01fe01fe01fe", "fe01fe01fe01fe01",
	"1fe01fe00ef10ef1", "e01fe01ff10ef10e",
	"01e001e001f101f1", "e001e001f101f101",
	"1ffe1ffe0efe0efe", "fe1ffe1ffe0efe0e",
	"011f011f010e010e", "1f011f010e010e01",
	"e0fee0fef1fef1fe", "fee0fee0fef1fef1",
}

// possiblyWeakKeys are the 48 possibly weak keys, whose schedule has only four distinct round keys.
// Source: B. Schneier, Applied Cryptography, 2nd ed. (1996), Table 12.13 "Possibly Weak DES Keys",
// after J. H. Moore and G. J. Simmons, "Cycle Structure of the DES with Weak and Semi-Weak Keys",
// CRYPTO '86. The printed table has a known misprint in row 18 ("1F FE E0 01 0E FE F0 01"); the
// byte F0 is F1 here, as the derivation from PC-1 demands (TestWeakKeyStructure).
var possiblyWeakKeys = [48]string{
	"1f1f01010e0e0101", "011f1f01010e0e01", "1f01011f0e01010e", "01011f1f01010e0e",
	"e0e00101f1f10101", "fefe0101fefe0101", "fee01f01fef10e01", "e0fe1f01f1fe0e01",
	"fee0011ffef1010e", "e0fe011ff1fe010e", "e0e01f1ff1f10e0e", "fefe1f1ffefe0e0e",
	"fe1fe001fe0ef101", "e01ffe01f10efe01", "fe01e01ffe01f10e", "e001fe1ff101fe0e",
	"01e0e00101f1f101", "1ffee0010efef101", "1fe0fe010ef1fe01", "01fefe0101fefe01",
	"1fe0e01f0ef1f10e", "01fee01f01fef10e", "01e0fe1f01f1fe0e", "1ffefe1f0efefe0e",
	"e00101e0f10101f1", "fe1f01e0fe0e01f1", "fe011fe0fe010ef1", "e01f1fe0f10e0ef1",
	"fe0101fefe0101fe", "e01f01fef10e01fe", "e0011ffef1010efe", "fe1f1ffefe0e0efe",
	"1ffe01e00efe01f1", "01fe1fe001fe0ef1", "1fe001fe0ef101fe", "01e01ffe01f10efe",
	"0101e0e00101f1f1", "1f1fe0e00e0ef1f1", "1f01fee00e01fef1", "011ffee0010efef1",
	"1f01e0fe0e01f1fe", "011fe0fe010ef1fe", "0101fefe0101fefe", "1f1ffefe0e0efefe",
	"fefee0e0fefef1f1", "e0fefee0f1fefef1", "fee0e0fefef1f1fe", "e0e0fefef1f1fefe",
}
