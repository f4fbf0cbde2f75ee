/* SPDX-License-Identifier: Apache-2.0 */
/* Functions the house does not use (git's banned.h idea): include this LAST in a .c file.
 * Use snprintf or struct strbuf instead of sprintf/strcpy/strcat, and a real parser instead of strtok. */
#pragma once

#pragma GCC poison strcpy strcat sprintf vsprintf strtok gets
