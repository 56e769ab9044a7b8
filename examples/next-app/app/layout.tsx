import type { Metadata } from 'next';
import type { ReactNode } from 'react';

export const metadata: Metadata = {
  title: 'Latchkey on Next.js',
  description: 'Latchkey mounted as App Router route handlers',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', maxWidth: '44rem', margin: '2rem auto' }}>
        {children}
      </body>
    </html>
  );
}
